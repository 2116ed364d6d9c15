/**
 * The simulator's vocabulary. SIM_BRANDS are the fictional companies it
 * names besides any brand in the prompt; a demo workspace that tracks one of
 * them (or lists them as competitors) sees realistic mentions and ranks.
 */
export const SIM_BRANDS = [
  'Northwind',
  'Brightlane',
  'Kestrel',
  'Lumina',
  'Orbitly',
  'Pinecrest',
  'Quantia',
  'Redwood Labs',
  'Sparrow',
  'Tandem',
  'Vantage',
  'Zephyr',
  'Bluepeak',
  'Cobalt',
  'Driftwood',
  'Evergreen',
  'Foxglove',
  'Granite',
  'Harbor',
  'Ironclad',
  'Juniper',
  'Keystone',
  'Larkspur',
  'Meridian',
  'Nimbus',
  'Oakmont',
  'Parallax',
  'Quill',
  'Rivet',
  'Summit',
  'Trellis',
  'Verve',
  'Willowbrook',
  'Yonder',
  'Zenith',
  'Acorn',
  'Beacon',
  'Cascade',
  'Dovetail',
  'Ember',
] as const;

export const STRENGTHS = [
  'known for its intuitive interface',
  'a strong choice for growing teams',
  'praised for responsive customer support',
  'offers a generous free tier',
  'popular with enterprise buyers',
  'stands out for its wide range of integrations',
  'often recommended for beginners',
  'well regarded for reliability and uptime',
  'competitively priced for small businesses',
  'frequently rated highly in independent reviews',
  'valued for its detailed reporting',
  'appreciated for fast onboarding',
];

export const CAVEATS = [
  'though some users mention a steeper learning curve',
  'although pricing can climb quickly at scale',
  'but reviewers note occasional slow support responses',
  'though its mobile app is less polished',
  'but advanced features sit behind higher tiers',
];

export const INTROS = [
  'Here are some of the most recommended options for {topic}:',
  'Based on recent reviews and comparisons, these stand out for {topic}:',
  'Several providers come up again and again for {topic}:',
  'If you are looking at {topic}, these are worth a closer look:',
];

export const OUTROS = [
  'The best choice depends on your budget, team size and the integrations you need.',
  'Consider starting with a free trial to see which one fits your workflow.',
  'Reading recent user reviews is a good way to narrow the list down.',
  'Compare pricing tiers carefully, since features vary a lot between plans.',
];

/** Third-party sites answers cite besides the brands' own pages. */
export const THIRD_PARTY = [
  {
    domain: 'g2.com',
    title: '{brand} Reviews 2025: Details, Pricing & Features | G2',
    path: '/products/{slug}/reviews',
  },
  {
    domain: 'reddit.com',
    title: 'Anyone using {brand}? Honest opinions : r/{word}',
    path: '/r/{word}/comments/{id}/anyone_using_{slug}/',
  },
  { domain: 'en.wikipedia.org', title: '{brand} - Wikipedia', path: '/wiki/{brand_}' },
  { domain: 'techradar.com', title: 'The best {topic} in 2025 | TechRadar', path: '/best/{topicSlug}' },
  {
    domain: 'forbes.com',
    title: 'Best {topic} Of 2025 – Forbes Advisor',
    path: '/advisor/business/software/best-{topicSlug}/',
  },
  { domain: 'youtube.com', title: '{brand} review: is it worth it?', path: '/watch?v={id}' },
  { domain: 'capterra.com', title: '{brand} Reviews, Pricing & Features | Capterra', path: '/p/{id}/{slug}/' },
  {
    domain: 'nytimes.com',
    title: 'How to choose {topic} - The New York Times',
    path: '/wirecutter/reviews/{topicSlug}/',
  },
] as const;

/** Words that start a sentence with a capital but are not brands. */
export const NOT_BRANDS = new Set(
  (
    'a an and are best can compare could did do does for how i in is it list me my of on or please recommend should ' +
    'show tell the their there these this top what when where which who why will with would you your vs versus ' +
    'give find name any most good great cheap affordable alternatives alternative options option tools tool software ' +
    'company companies brand brands service services app apps platform platforms product products'
  ).split(' '),
);

import type { OtherSense } from './lexicon.ts';
import { IS_WORD } from './fold.ts';
import { isEverydayWord, isFunctionWord, isGivenName, isMostlyName, isProperAnyway } from './lexicon.ts';
import { posAround, type Pos } from './pos.ts';
import { sentenceAround } from './sentences.ts';

/**
 * Whether one occurrence of an ambiguous name ("Monday", "Notion", "you",
 * "HP") means the brand, read from its surroundings as a careful reader
 * does: each cue around it is a feature, and the sum of the model's weights
 * of the features that fire (learned: reader-model.ts, scripts/names-train.ts)
 * above zero means the brand (docs/analysis.md "Everyday-word names"). The
 * name's other sense is a feature too, so a pronoun needs more proof than a
 * fruit. Only ambiguous names come here, so plain names pay nothing for it;
 * mentions.ts walks an answer's occurrences and adds what the rest of the
 * answer says.
 */

export interface Occurrence {
  text: string;
  start: number;
  end: number;
  sense: OtherSense;
  /** the spellings the book gives the name ("Notion", "HubSpot") */
  casings: readonly string[];
  /** its lower-case form is an everyday word ("chase", "apple"; not "monday") */
  lowerWord: boolean;
  /** how common the name is as a word: occurrences of its rarest word in the frequency list (lexicon.ts), 0 if unknown */
  wordCount: number;
  /** a one-word name the frequency list mostly writes capitalised: the name of something else ("Harvey", "Vail") */
  mostlyName: boolean;
}

/** What the rest of the answer says about the entity. */
export interface AnswerEvidence {
  /** the same entity is named elsewhere without doubt: its domain, or a name of it that is no everyday word */
  namedElsewhere: boolean;
  /** another tracked brand is named in the same sentence */
  brandInSentence: boolean;
  /** another tracked brand sits next to it in a list ("Asana, Monday and Trello") */
  brandBeside: boolean;
  /** right after a tracked name ("Samsung Galaxy", "Chevrolet Tahoe"): a product line */
  afterBrand: boolean;
  /** the prompt names it too */
  inPrompt: boolean;
  /** where the line holding an offset starts (lines.ts lineStarts: one look back a line, not one a name) */
  lineStartOf: (at: number) => number;
  /** the answer holds a `*` or `_` at all: without one, no name is inside italics */
  italics: boolean;
  /**
   * taggings this answer may still ask for (a tagging costs tens of µs, so an answer of thousands of names gets a
   * few), and the tags already found, by the name's offset: a second reading of an occurrence tags nothing again
   */
  tagger: { left: number; seen: Map<number, Pos | null> };
  /** the sentence holding the name (sentenceNear), found on first asking, once an occurrence */
  sentenceOf: () => { start: number; end: number };
  /** it heads an item of a list written on one line ("Top options: 1. Monday 2. Asana") */
  listHead: boolean;
  /** another tracked brand is named plainly somewhere in the answer (a name that is no everyday word, a domain) */
  otherBrandPlain: boolean;
  /** another tracked brand heads an item of a list or a table's row somewhere in the answer */
  otherBrandHeads: boolean;
  /** a word of the tracked names' own terms (topic.ts) within a few words of the name */
  topicNear: boolean;
}

/** Senses English always writes with a capital, so a capital says little. */
const CAPITALISED_ANYWAY = new Set<OtherSense>(['weekday', 'month', 'sky', 'person', 'place', 'language', 'name']);

const PRODUCT_NOUNS = new Set(
  (
    'app apps platform platforms software tool tools suite crm erp api apis dashboard dashboards workspace workspaces subscription subscriptions tier tiers plan plans pricing price prices ' +
    'feature features integration integrations extension extensions plugin plugins add-on add-ons template templates automation automations board boards account accounts ' +
    'interface ui ux users user customers customer support onboarding trial demo license licence seats seat version release update updates mobile desktop web cloud service services ' +
    'product products solution solutions system systems editor builder checkout terminal terminals reader readers device devices printer printers laptop laptops phone phones store ' +
    'marketplace card cards rewards membership members delivery deliveries shipping menu menus stock shares settings checking savings ' +
    'bag bags shoe shoes sneakers watch watches car cars truck trucks suv laptop jacket jackets boots bike bikes mattress mattresses vacuum vacuums lock locks oven ovens ' +
    'bracelet bracelets charm charms earbuds headphones camera cameras tv tvs console consoles stations station bank banking documentation docs sdk library libraries'
  ).split(' '),
);

/** Product nouns that also follow a day or a month ("the Monday plan", "the March update"). */
const DAY_NOUNS = new Set(
  'plan plans update updates release releases delivery deliveries store card version menu shipping members stock'.split(
    ' ',
  ),
);

/** Verbs a product is the subject of ("Monday offers", "Notion lets you"). */
const PRODUCT_VERBS = new Set(
  (
    'offers offer provides provide integrates integrate supports support lets let allows allow includes include costs cost charges charge starts start ships ship syncs sync connects ' +
    'connect scales scale automates automate handles handle focuses focus excels excel shines shine stands tracks track stores store hosts host runs run delivers deliver ' +
    'helps help gives give features feature bundles bundle adds add launched launches released releases announced announces acquired raised sells sell makes offered provided integrated ' +
    'supported included cost charged started shipped handled focused tracked stored delivered helped gave added made has have had works work comes come ' +
    'limits sells sold designs designed produces produced manufactures manufactured operates operated settled became owns owned builds built compiles lets powers powered'
  ).split(' '),
);

/** Words before a name that take a product ("switch to", "tools like", "vs"). */
const PRODUCT_BEFORE_1 = new Set(
  (
    'use uses using used try tries tried trying adopt adopted adopting choose chose choosing pick picked picking recommend recommended consider considered considering evaluate evaluated ' +
    'vs versus via than including include includes install installed installing buy bought subscribe subscribed prefer preferred prefers love loved like liked rate rated review reviewed compare compared ' +
    'outperforms beats beat replaced replace replacing'
  ).split(' '),
);
const PRODUCT_BEFORE_2 = new Set(
  [
    'switch to',
    'switched to',
    'switching to',
    'migrate to',
    'migrated to',
    'migrating to',
    'move to',
    'moved to',
    'moving to',
    'such as',
    'compared to',
    'compared with',
    'alternative to',
    'alternatives to',
    'integrates with',
    'integration with',
    'sign up',
    'signed up',
    'pay for',
    'paid for',
    'paying for',
    'go with',
    'went with',
    'stick with',
    'built on',
    'built with',
    'powered by',
    'tools like',
    'apps like',
    'platforms like',
    'options like',
    'products like',
    'brands like',
    'services like',
    'competitors like',
    'rivals like',
    'apart from',
    'ahead of',
    'behind',
    'up to',
  ].filter((x) => x.includes(' ')),
);

/** The last words of PRODUCT_BEFORE_2: the pair is looked up only after one of them. */
const BEFORE_2_LAST = new Set([...PRODUCT_BEFORE_2].map((p) => p.slice(p.lastIndexOf(' ') + 1)));

/** "X is a/an ... (tool|platform|...)" and its kin: "a solid pick", "the best option". */
const CHOICE_NOUNS = new Set(
  'pick choice option options alternative alternatives fit bet winner favorite favourite leader contender standout'.split(
    ' ',
  ),
);

const DATE_BEFORE = new Set(
  'on by until till next last this every each since from before after through thru early late mid during starting ending coming past following following until of in every other'.split(
    ' ',
  ),
);
const DATE_AFTER = new Set(
  'morning mornings afternoon afternoons evening evenings night nights between deadline deadlines holiday holidays break weekend blues'.split(
    ' ',
  ),
);
const DAY_WORDS = new Set(
  'monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays thursdays fridays saturdays sundays weekday weekdays weekend weekends january february march april may june july august september october november december'.split(
    ' ',
  ),
);
/** Words of time: around a weekday or month, they make it the day or the month. */
const TIME_WORDS = new Set(
  'day days week weeks weekend weekends month months year years morning afternoon evening night today tomorrow yesterday schedule calendar holiday holidays season date dates deadline busiest quietest'.split(
    ' ',
  ),
);
const POSSESSIVE_DETERMINERS = new Set('my your our their his her'.split(' '));
const PERSON_TITLES = new Set(
  'mr mrs ms dr sir dame lord lady president senator governor ceo founder author actor actress singer st saint king queen prince princess uncle aunt'.split(
    ' ',
  ),
);
const PLACE_AFTER = new Set(
  'river rivers rainforest basin delta valley city county airport region forest jungle area metro state island islands mountains beach coast bay lake highway road street avenue boulevard bridge center centre national alps'.split(
    ' ',
  ),
);
/**
 * Words that end the name of an institution ("Columbia University", "Ford Foundation") or of a conglomerate's
 * division in another trade ("GE Aerospace", "GE HealthCare"). Not a company's own legal or trade words (Company,
 * Bank, Airlines, Energy): "Chase Bank" and "American Airlines" are those brands themselves.
 */
const ORGANISATION_AFTER = new Set(
  'foundation university college institute school academy hospital museum library society council church aerospace healthcare pharmaceuticals biotech'.split(
    ' ',
  ),
);
const PLACE_BEFORE = new Set(
  'in near from around outside downtown across visit visiting visited into throughout towards toward'.split(' '),
);
const REGION_BEFORE = new Set(
  'northern southern eastern western central northeastern northwestern southeastern southwestern upstate coastal rural'.split(
    ' ',
  ),
);
const SKY_WORDS = new Set(
  'planet planets orbit orbits orbiting moon moons mission missions nasa solar telescope rover god goddess myth myths mythology greek roman norse retrograde atmosphere surface spacecraft probe temple'.split(
    ' ',
  ),
);
const ANIMAL_WORDS = new Set(
  'species habitat habitats prey cub cubs fur zoo wild wildlife hunt hunts hunting eat eats population populations nest nests feathers wings wingspan predator predators breed breeds bird birds animal animals cat cats'.split(
    ' ',
  ),
);
const LANGUAGE_WORDS = new Set(
  'language languages speakers speaker speaking speak speaks spoken translation translate translated accent dialect grammar words word fluent native subtitles phrase phrases'.split(
    ' ',
  ),
);
const ADVERBS = new Set(
  'also now still even just only often already recently finally really usually typically generally mostly widely commonly'.split(
    ' ',
  ),
);
const USED =
  /^(?:is|are|was|were|gets|got) (?:\w+ )?(?:used|adopted|recommended|trusted|loved|rated|known|mentioned|praised|cited|preferred)\b/;
const USED_FIRST = new Set('is are was were gets got'.split(' '));
const IN_PRODUCT = new Set('of in for on inside within'.split(' '));
const DAY_DETERMINERS = new Set('a an the this that next last every each'.split(' '));
const PRONOUNS = new Set('you we they i he she it your our their'.split(' '));
const PLACE_BEFORE_CAP = new Set(
  'lake mount mt river cape port fort san santa st saint north south east west upper lower greater new big gen'.split(
    ' ',
  ),
);
const DETERMINERS = new Set('a an the this that these those its some any no each every another one'.split(' '));
const MODALS = new Set("to can will would should could may might must you we they i don’t don't let lets".split(' '));

interface Around {
  before: string[];
  after: string[];
  /** the characters right after the name, up to the next word */
  glue: string;
  /** the characters right before the name, back to the previous word */
  lead: string;
  /** the word after, as written */
  afterWritten: string;
  /** the word before, as written */
  beforeWritten: string;
}

function isWordAt(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  return IS_WORD[c] === 1 || c === 39 || c === 0x2019;
}

/** Up to `n` words each side, within the sentence (stopping at `.!?` and line breaks). */
function around(text: string, start: number, end: number, n: number): Around {
  const before: string[] = [];
  const after: string[] = [];
  let i = start - 1;
  let lead = '';
  let beforeWritten = '';
  while (before.length < n && i >= 0) {
    let gap = '';
    while (i >= 0 && !isWordAt(text, i)) {
      const c = text[i] as string;
      if (c === '\n' || c === '.' || c === '!' || c === '?' || c === ':' || c === ';') return finish();
      gap = c + gap;
      i--;
    }
    if (before.length === 0) lead = gap;
    const e = i + 1;
    while (i >= 0 && isWordAt(text, i)) i--;
    if (e - (i + 1) <= 0) break;
    const w = text.slice(i + 1, e);
    if (before.length === 0) beforeWritten = w;
    before.push(w.toLowerCase());
  }
  return finish();

  function finish(): Around {
    let j = end;
    let glue = '';
    let afterWritten = '';
    while (after.length < n && j < text.length) {
      while (j < text.length && !isWordAt(text, j)) {
        const c = text[j] as string;
        if (after.length === 0) glue += c;
        if (c === '\n' || c === '!' || c === '?' || ((c === '.' || c === ':' || c === ';') && !isWordAt(text, j + 1)))
          return { before, after, glue, lead, afterWritten, beforeWritten };
        j++;
      }
      const s = j;
      while (j < text.length && isWordAt(text, j)) j++;
      if (j === s) break;
      const w = text.slice(s, j);
      if (after.length === 0) afterWritten = w;
      after.push(w.toLowerCase());
    }
    return { before, after, glue, lead, afterWritten, beforeWritten };
  }
}

const SKIP_BACK = new Set([' ', '\t', '*', '_', '#', '>', '[', '(', '"', "'", '`', '-', '+', '•', '|']);

/**
 * How far any look around a name reaches, each way: an answer is read in
 * linear time whatever its lines' lengths (a line of 200 KB holding thousands
 * of names costs each of them this much, not the line).
 */
const REACH = 400;

/** End of the line holding offset i (the newline's offset), looked for at most REACH ahead. */
function lineEndNear(text: string, i: number): number {
  const stop = Math.min(text.length, i + REACH);
  for (let j = i; j < stop; j++) if (text.charCodeAt(j) === 10) return j;
  return stop;
}

/** The next `c` in [from, to), or -1. */
function findBefore(text: string, c: string, from: number, to: number): number {
  for (let j = from; j < to; j++) if (text[j] === c) return j;
  return -1;
}

/** The sentence around `at`, looked for within REACH each way. */
export function sentenceNear(text: string, at: number): { start: number; end: number } {
  return sentenceAround(text, at, Math.max(0, at - REACH), Math.min(text.length, at + REACH));
}

function atSentenceStart(text: string, start: number): boolean {
  let i = start - 1;
  while (i >= 0 && SKIP_BACK.has(text[i] ?? '')) i--;
  if (i < 0) return true;
  const c = text[i];
  return (
    c === '\n' ||
    c === '.' ||
    c === '!' ||
    c === '?' ||
    c === ':' ||
    (c !== undefined &&
      c >= '0' &&
      c <= '9' &&
      /(?:^|\n)\s*\d{1,3}[.)]\s*$/.test(text.slice(Math.max(0, i - 6), start)))
  );
}

/** Bold, italic, code, a link text, a heading, a table's first cell or the head of a list item. */
function markedAsName(text: string, start: number, end: number, lineStartOf: (at: number) => number): string | null {
  const before2 = text.slice(Math.max(0, start - 2), start);
  const after2 = text.slice(end, end + 2);
  if ((before2 === '**' || before2 === '__') && (after2 === '**' || after2 === '__')) return 'written in bold';
  const before = text[start - 1];
  const after = text[end];
  if ((before === '*' || before === '_') && (after === '*' || after === '_')) return 'written in italics';
  if (before === '`' || before === '[') return 'written as code or link text';
  const lineStart = lineStartOf(start);
  // A heading: "#" after at most three spaces (CommonMark), however long the line.
  let first = lineStart;
  while (first < lineStart + 3 && text[first] === ' ') first++;
  if (text[first] === '#') return 'in a heading';
  // An indent, a list marker, a bold opening and their spaces fit in 40 characters: past them the name heads nothing.
  if (start - lineStart > 40) return null;
  const head = text.slice(lineStart, start);
  if (/^\s*\|\s*(?:\*\*)?$/.test(head)) return "in a table's first column";
  if (LIST_HEAD.test(head)) {
    // "1. **Dell Inspiron 14** – ...": a bold head that starts with the name names a product line of it;
    // "5. **Zoom out at the end.**" is an instruction, not a name.
    if (/(?:\*\*|__)$/.test(head)) {
      const lineEnd = lineEndNear(text, end);
      const close = text.slice(end, lineEnd).indexOf(head.slice(-2));
      const bold = close < 0 ? '' : text.slice(start, end + close);
      return /[.!?]$/.test(bold) || bold.split(' ').length > 5 ? null : 'heads a list item';
    }
    if (/^(?:\*\*|__)?\s*(?:$|\n|[(–—:,]|\s+[-–—]\s)/.test(text.slice(end, end + 4))) return 'heads a list item';
  }
  return null;
}

const LIST_HEAD = /^\s*(?:\d{1,3}[.)]|[-*+•])\s+(?:\*\*|__)?$/;

type Casing = 'lower' | 'capital' | 'caps' | 'book';

function casingOf(written: string, casings: readonly string[], proper: boolean): Casing {
  if (!ASCII_NAME.test(written)) return casingOfAny(written, casings, proper);
  // The same rules as casingOfAny, counted over character codes: most names are ASCII, and this runs once an occurrence.
  let letters = 0;
  let upper = 0;
  let laterUpper = false;
  let innerUpper = false;
  for (let i = 0; i < written.length; i++) {
    const c = written.charCodeAt(i);
    const up = c >= 65 && c <= 90;
    if (up || (c >= 97 && c <= 122)) {
      if (up) {
        upper++;
        if (letters > 0) laterUpper = true;
        const p = i > 0 ? written.charCodeAt(i - 1) : 0;
        if ((p >= 65 && p <= 90) || (p >= 97 && p <= 122) || (p >= 48 && p <= 57)) innerUpper = true;
      }
      letters++;
    }
  }
  const allUpper = upper > 0 && upper === letters;
  if (letters >= 2 && allUpper && casings.includes(written)) return 'book';
  if (letters >= 3 && allUpper) return 'caps';
  if (upper === 0) return casings.includes(written) && letters > 0 ? 'book' : 'lower';
  if (casings.includes(written) && (proper ? innerUpper : laterUpper)) return 'book';
  return 'capital';
}

const ASCII_NAME = /^[\x20-\x7e]*$/;

function casingOfAny(written: string, casings: readonly string[], proper: boolean): Casing {
  const letters = written.replace(/[^\p{L}]/gu, '');
  // "HERE" is how the brand writes itself: its own capitals, not the sentence's.
  if (
    letters.length >= 2 &&
    letters === letters.toUpperCase() &&
    letters !== letters.toLowerCase() &&
    casings.includes(written)
  )
    return 'book';
  if (letters.length >= 3 && letters === letters.toUpperCase() && letters !== letters.toLowerCase()) return 'caps';
  if (letters === letters.toLowerCase())
    return casings.includes(written) && written !== written.toUpperCase() ? 'book' : 'lower';
  // A capital past the first letter that the book gives ("HubSpot", "HP", "Bar Labs") is the writer's, never the
  // sentence's; but a name English capitalises anyway ("Santa Fe") has every word capitalised whatever it means.
  if (
    casings.includes(written) &&
    (proper ? /[\p{L}\p{N}]\p{Lu}/u : /\p{Lu}/u).test(proper ? written : letters.slice(1))
  )
    return 'book';
  return 'capital';
}

/**
 * A linear reading: each feature that fires adds its weight to the bias, and a sum above zero means the brand.
 * The weights are learned (reader-model.ts); a feature the model does not know weighs nothing.
 */
export interface ReaderModel {
  bias: number;
  weights: Readonly<Record<string, number>>;
}

/** Where a feature fires: its id (the model's key) and why, in words, for explanations. */
export type FeatureSink = (id: string, why: string) => void;

/** What the deferred features need of the eager pass, and whether the writer marked the name as one. */
export interface Deferred {
  /** no other day or month is beside it: whether one is near is looked for later ("among other days") */
  nearDays: boolean;
  /** the tagger may be asked about the word after the name */
  tag: boolean;
  folded: string;
  verb: string;
  next: string;
  compound: boolean;
  lowerNext: boolean;
  /** marked as a name (bold, a heading, a list's head...), in the brand's own casing or listed beside brands */
  strong: boolean;
}

/** Whether the deferred features could still move the sum across zero: else they need not be looked for. */
export function couldTip(score: number, d: Deferred, model: ReaderModel): boolean {
  let up = 0;
  let down = 0;
  const add = (w: number) => {
    if (w > 0) up += w;
    else down += w;
  };
  if (d.nearDays) add(model.weights['days-near'] ?? 0);
  if (d.tag) {
    // One of the two tag features fires at most.
    const v = model.weights['tag-verb-after'] ?? 0;
    const n = model.weights['tag-noun-after'] ?? 0;
    up += Math.max(0, v, n);
    down += Math.min(0, v, n);
  }
  return score > 0 ? score + down <= 0 : score + up > 0;
}

/**
 * The features of one occurrence that are cheap to find, each given to `f` with its reason. What the rest of the
 * answer says comes in `evidence`; the features needing other occurrences' readings or the tagger come later.
 */
export function eagerFeatures(o: Occurrence, evidence: AnswerEvidence, f: FeatureSink): Deferred {
  const { text, start, end, sense } = o;
  const written = text.slice(start, end);
  const folded = written.toLowerCase();
  f(`sense:${sense}`, sense === 'word' ? 'the name is an everyday word' : `the name is also a ${sense}`);
  f(`common:${commonness(o.wordCount)}`, `as common a word as ${commonness(o.wordCount)}`);
  if (o.mostlyName) f('mostly-a-name', 'mostly the name of something else');
  const a = around(text, start, end, 5);
  const [b1 = '', b2 = '', b3 = ''] = a.before;
  const [a1 = ''] = a.after;
  const possessive = a1 === "'s" || a1 === '’s' || (a1 === 's' && /^['’]$/.test(a.glue));
  const rest = possessive ? a.after.slice(1) : a.after;
  const next = rest[0] ?? '';
  const next2 = rest[1] ?? '';
  const apostrophe = next.search(/['’]/);
  const nextBare = apostrophe < 0 ? next : next.slice(0, apostrophe);
  // "You also lets you", "Saturn is widely used": adverbs between a subject and its verb.
  const verb = ADVERBS.has(next) ? next2 : next;
  const sentenceStart = atSentenceStart(text, start);
  const proper = CAPITALISED_ANYWAY.has(sense) || isProperAnyway(folded);
  const casing = casingOf(written, o.casings, proper);
  const allCaps = casing === 'caps' || (casing === 'book' && written.length > 1 && written === written.toUpperCase());
  const shouting = allCaps && allCapitalsAround(text, start, end, evidence.sentenceOf());
  const dayLike = sense === 'weekday' || sense === 'month';
  const prevCapital = /^\p{Lu}/u.test(a.beforeWritten) && a.lead === ' ';
  const nextCapital = /^\p{Lu}/u.test(a.afterWritten) && a.glue === ' ';
  // Where it stands and how it is written, plainly: the other features say what these mean around it.
  f(`casing:${shouting ? 'shouting' : casing}`, `written ${shouting ? 'in a sentence in capitals' : casing}`);
  if (sentenceStart) f('sentence-start', 'opens a sentence');
  if (possessive) f('possessive', 'a possessive');
  // "Atlas Obscura", "Vail Mountain", "Hurricane Harvey": a capitalised word joined to it makes a longer name,
  // unless it is another brand of a list.
  if (nextCapital && !evidence.brandBeside && !PRODUCT_NOUNS.has(next) && !isFunctionWord(next))
    f('capital-word-after', `"${written} ${a.afterWritten}", a longer name`);
  if (
    prevCapital &&
    !evidence.brandBeside &&
    !evidence.afterBrand &&
    !atSentenceStart(text, start - a.beforeWritten.length - 1)
  )
    f('capital-word-before', `"${a.beforeWritten} ${written}", a longer name`);
  if (ORGANISATION_WORDS.has(next) || ORGANISATION_WORDS.has(b1))
    f('organisation-word-beside', 'beside a word that ends or opens an organisation’s name');

  const inTitle =
    evidence.italics && insideItalicTitle(text, start, end, Math.max(evidence.lineStartOf(start), start - REACH));
  let mark = markedAsName(text, start, end, evidence.lineStartOf) ?? (evidence.listHead ? 'heads a list item' : null);
  if (mark !== null && inTitle) mark = null;
  let strong = evidence.brandBeside || (mark !== null && mark !== 'written in italics');
  if (mark) f(MARKS[mark] ?? 'mark:other', mark);
  else if (a.glue.startsWith(':') && sentenceStart) f('colon-after-at-start', 'introduced with a colon');
  else if (inTitle) f('italic-title', 'part of a title in italics');
  if (a.glue === '.' && (next === 'com' || next === 'io' || next === 'ai' || next === 'co'))
    f('domain-after', 'written with its domain');
  if (/^-\p{Ll}/u.test(text.slice(end, end + 2)) || (text[start - 1] === '-' && /\p{Ll}/u.test(text[start - 2] ?? '')))
    f('hyphenated', 'part of a hyphenated word');

  // Casing: what the writer's capitals say beyond the sentence's own. Short names keep their exact casing,
  // since capitals are how short words are stressed ("GO!" is no sign of a brand "Go").
  if (sense === 'short') {
    if (!o.casings.includes(written)) f('short:not-book-casing', 'not written as the brand writes it');
    else if (casing === 'book') {
      f('short:book-casing', 'written as the brand writes it');
      strong = true;
    }
  } else if (casing === 'book') {
    // A brand that writes itself in capitals ("HERE", "HER") is all but certain where the sentence is not in capitals.
    if (!shouting) {
      f(allCaps ? 'book-casing-caps' : 'book-casing', 'written as the brand writes it');
      strong = true;
    }
  } else if (casing === 'caps' && !shouting) f('caps-in-mixed-text', 'in capitals in mixed-case text');
  else if (casing === 'capital' && sentenceStart && o.casings.some((c) => INNER_CAPITAL.test(c)))
    f('book-capitals-dropped', 'without the capitals the brand writes past its first letter');
  else if (casing === 'capital' && !sentenceStart && !inTitle) {
    if (!proper)
      f(sense === 'function' ? 'capital-mid-sentence:function' : 'capital-mid-sentence', 'capitalised mid-sentence');
  } else if (casing === 'lower') {
    if (sense === 'function') f('lower:function', 'a common word in lower case');
    else if (o.lowerWord) f('lower:everyday', 'an everyday word in lower case');
    else if (sense === 'animal') f('lower:animal', 'an animal, in lower case');
  }

  // A product's company: list neighbours, product verbs and nouns, choosing words.
  // Where nothing else tells, an answer that names the brand elsewhere, or another brand beside it, tips it.
  if (evidence.brandBeside) f('brand-beside', 'listed beside other brands');
  else if (evidence.brandInSentence) f('brand-in-sentence', 'another brand in the sentence');
  if (evidence.namedElsewhere) f('named-elsewhere', 'the answer names the brand elsewhere');
  if (evidence.inPrompt) f('in-prompt', 'the prompt names it');
  // The answer's topic: other tracked brands in it, words of the tracked names' own terms.
  // An answer long enough to name other brands that names none is about something else more often; a sentence or
  // two alone says nothing either way.
  if (!evidence.otherBrandPlain && text.length >= LONG_ANSWER)
    f('no-other-brand-in-answer', 'a long answer naming no other tracked brand');
  if (evidence.otherBrandHeads) f('other-brand-heads-items', 'another tracked brand heads a list item or row');
  if (evidence.topicNear) f('topic-near', 'words of the tracked names’ terms near it');
  if (PRODUCT_NOUNS.has(next) && !(dayLike && DAY_NOUNS.has(next)))
    f(possessive ? 'product-noun-after:possessive' : 'product-noun-after', `followed by "${next}"`);
  else if (!possessive && PRODUCT_VERBS.has(verb)) f('product-verb-after', `the subject of "${verb}"`);
  else if (!possessive && USED_FIRST.has(next) && USED.test(rest.slice(0, 3).join(' ')))
    f('said-to-be-used', 'said to be used');
  else if (!dayLike && /^\d/.test(next) && !evidence.listHead)
    f('version-after', 'followed by a version or model number');
  if (
    (next === 'is' || next === 'was' || next === 'remains') &&
    (rest.slice(1, 5).some((w) => CHOICE_NOUNS.has(w) || PRODUCT_NOUNS.has(w)) || theOneThat(rest))
  )
    f('called-a-product', 'called a product or a choice');
  // "a tool as popular as Apollo", "apps cheaper than Monday": compared with a product named just before.
  if ((b1 === 'as' || b1 === 'than') && a.before.slice(1, 5).some((w) => PRODUCT_NOUNS.has(w)))
    f('compared-with-product', `compared with a product ("${b1} ${written}")`);
  if (WORK_NOUNS.has(b1) || (b1 === 'the' && WORK_NOUNS.has(b2)))
    f('work-title', `the title of a ${WORK_NOUNS.has(b1) ? b1 : b2}`);
  if (
    sense === 'short' &&
    /^\s?\d/.test(text.slice(end, end + 2)) &&
    /\d\s?$/.test(text.slice(Math.max(0, start - 2), start))
  )
    f('between-numbers', 'a multiplication or dimension sign');
  if (PRODUCT_BEFORE_1.has(b1)) f('product-word-before', `after "${b1}"`);
  else if (BEFORE_2_LAST.has(b1) && PRODUCT_BEFORE_2.has(`${b2} ${b1}`))
    f('product-phrase-before', `after "${b2} ${b1}"`);
  else if (IN_PRODUCT.has(b1) && PRODUCT_NOUNS.has(b2)) f('product-noun-preposition-before', `"${b2} ${b1}" it`);
  else if (b1 === 'on' && !dayLike && casing !== 'lower') f('on-platform', 'after "on", as a platform');
  else if (POSSESSIVE_DETERMINERS.has(b1)) {
    if (dayLike || !o.lowerWord) f('owned', `"${b1} ${written}": something one owns`);
    else f('possessive-before-word', `after "${b1}"`);
  } else if (b1 === 'with' || b1 === 'like' || b1 === 'or' || b1 === 'and') f('conjunction-before', `after "${b1}"`);

  // Part of another name: "the Big Apple", "Gen X", "Lake Tahoe", "Robin Dunbar", "Orange County".
  if (evidence.afterBrand) f('after-brand', 'right after a brand: its product line');
  else if (prevCapital && !evidence.brandBeside && !mark) {
    // "Michael Dell", "Sir James Dyson": a first name before it makes it a person's, wherever it stands.
    if (isGivenName(b1) && !isEverydayWord(b1)) f('after-first-name', `after "${a.beforeWritten}", a person's name`);
    else if (PLACE_BEFORE_CAP.has(b1)) f('after-place-word', `after "${a.beforeWritten}", part of another name`);
    // A capital opening a sentence tells nothing ("Use Notion"), but a word written capitalised anyway does ("British Columbia").
    else if (!atSentenceStart(text, start - a.beforeWritten.length - 1) || isMostlyName(b1))
      f('after-capital', `after "${a.beforeWritten}", part of another name`);
  }
  // "GE Aerospace", "Columbia University", "Ford Foundation": another organisation named after the same word.
  if (nextCapital && !evidence.brandBeside && ORGANISATION_AFTER.has(next))
    f('organisation-after', `"${written} ${a.afterWritten}", another organisation`);
  if (nextCapital && isGivenName(folded) && !mark && !evidence.brandBeside && !PRODUCT_NOUNS.has(a1))
    f('first-name-surname', 'a first name followed by a surname');
  if (PERSON_TITLES.has(b1)) f('person-title', 'a person’s title before it');
  if (PLACE_AFTER.has(next) && !possessive) f('place-after', `a place ("${written} ${next}")`);

  // The other sense's own company.
  let nearDays = false;
  if (dayLike) {
    if (DATE_BEFORE.has(b1) || (DAY_DETERMINERS.has(b1) && DATE_BEFORE.has(b2)))
      f('date-before', `a date phrase ("${b1} ${written}")`);
    if (!evidence.listHead && (DATE_AFTER.has(next) || /^\d/.test(next) || /^[,\s]*\d/.test(a.glue)))
      f('date-after', 'a date or time phrase');
    if (
      (DAY_LINKS.has(next) && DAY_WORDS.has(next2)) ||
      (DAY_LINKS.has(b1) && DAY_WORDS.has(b2)) ||
      (b1 === 'and' && DAY_WORDS.has(b3))
    )
      f('beside-day', 'beside another day or month');
    else nearDays = true;
    if (possessive && !PRODUCT_NOUNS.has(next)) f('day-possessive', 'a possessive of the day');
    // "Monday is the busiest day", "in the first week of June": words of time around it.
    if (a.before.some((w) => TIME_WORDS.has(w)) || rest.some((w) => TIME_WORDS.has(w)))
      f('time-words-near', 'words of time around it');
  }
  if (sense === 'place' || sense === 'person') {
    if (/^,\s*\p{Lu}/u.test(text.slice(end, end + 3)) && /^\p{Lu}/u.test(a.afterWritten) && !evidence.brandBeside)
      f('place-and-region', 'a place and its region');
    if (sense === 'place' && REGION_BEFORE.has(b1)) f('region-before', `"${b1} ${written}", a region`);
    else if (sense === 'place' && PLACE_BEFORE.has(b1)) f('place-word-before', `after "${b1}"`);
    if (sense === 'place' && b1 === 'the' && casing === 'capital') f('the-place', `"the ${written}", a place`);
  }
  if (sense === 'sky' && (SKY_WORDS.has(next) || SKY_WORDS.has(b1) || SKY_WORDS.has(next2) || SKY_WORDS.has(b2)))
    f('sky-words', 'the planet or the myth');
  if (sense === 'animal' && (ANIMAL_WORDS.has(next) || ANIMAL_WORDS.has(b1) || ANIMAL_WORDS.has(next2)))
    f('animal-words', 'the animal');
  if (sense === 'language') {
    if (LANGUAGE_WORDS.has(next) || LANGUAGE_WORDS.has(b1) || (b1 === 'of' && LANGUAGE_WORDS.has(b2)) || b1 === 'in')
      f('language-words', 'the language');
    // "Swiss chocolate", "Turkish delight": an adjective before a noun; not before a preposition ("prefer Swiss for").
    else if (
      /^\p{Ll}/u.test(a.afterWritten) &&
      a.glue === ' ' &&
      !PRODUCT_NOUNS.has(next) &&
      !PRODUCT_VERBS.has(verb) &&
      !isFunctionWord(next)
    )
      f('nationality-adjective', `"${written} ${next}": a nationality or language`);
  }
  // Where casing tells nothing, the words around decide: a determiner or "of" makes it a common noun.
  if (casing === 'lower' || shouting || (sentenceStart && casing === 'capital') || (casing === 'capital' && proper)) {
    // A determiner before a list of brands belongs to the noun after the list ("an Oracle or IBM database").
    if (DETERMINERS.has(b1) && !PRODUCT_NOUNS.has(next) && !evidence.brandBeside)
      f('determiner-before', `after "${b1}"`);
    // "Every one of these", "Indeed, many employers": a determiner, or an adverb set off by a comma, opening the sentence.
    if (sentenceStart && DETERMINERS.has(folded) && !ADVERBS.has(next) && !PRODUCT_VERBS.has(verb))
      f('determiner-opening', 'a determiner opening the sentence');
    else if (sentenceStart && o.lowerWord && a.glue.startsWith(',') && !evidence.brandBeside)
      f('comma-opening', 'an opening word set off by a comma');
    if (next === 'of') f('of-after', `"${written} of"`);
    if (MODALS.has(b1) && !dayLike) f('modal-before', `a verb after "${b1}"`);
    if (sentenceStart && (sense === 'function' || sense === 'word') && PRONOUNS.has(nextBare))
      f('conjunction-before-pronoun', `a conjunction before "${nextBare}"`);
    if (casing === 'lower' && !dayLike && DETERMINERS.has(next))
      f('before-determiner', `before "${next}", a preposition or verb`);
  } else if (casing === 'capital' && b1 === 'the' && !PRODUCT_NOUNS.has(next) && !mark)
    f('the-capitalised', `"the ${written}", a title or a thing`);

  // A closed-class word after the name ("is", "and", "the") is never the verb or the noun asked about: no tagging.
  const tag = sentenceStart && casing === 'capital' && !mark && !CLOSED_CLASS.has(next) && next !== '';
  return {
    nearDays,
    tag,
    folded,
    verb,
    next,
    // "Every crossed-off day": a participle joined by a hyphen is an adjective, not the name's verb.
    compound: text[end + a.glue.length + (a.afterWritten.length || 0)] === '-',
    // "Target audience definition": an everyday word right before a lower-case word, no punctuation between.
    lowerNext: sense === 'word' && a.glue === ' ' && /^\p{Ll}/u.test(a.afterWritten) && !PRODUCT_NOUNS.has(next),
    strong,
  };
}

/** The features that cost most, looked for last and, in reading, only where they can still change the outcome. */
export function deferredFeatures(o: Occurrence, evidence: AnswerEvidence, d: Deferred, f: FeatureSink): void {
  if (d.nearDays && otherDaysNear(o.text, o.start, o.end, d.folded)) f('days-near', 'among other days or months');
  // At a sentence start the capital tells nothing; the tagger says whether the word after it is a verb of which the
  // name is the subject ("Swiss flies from JFK", "Hermès limits production").
  if (d.tag) {
    const tag = nextTag(o.text, o.start, o.end, evidence);
    if (tag === 'VERB' && !PRODUCT_VERBS.has(d.verb) && !d.compound)
      f('tag-verb-after', `the subject of the verb "${d.next}"`);
    // "Target audience definition", "Square tables": an everyday word before a noun that is no product's modifies it.
    // Not where another brand shares the sentence: there "Zoom breakout rooms" is a product's feature.
    else if (tag === 'NOUN' && d.lowerNext && !evidence.brandInSentence && !PRODUCT_VERBS.has(d.verb))
      f('tag-noun-after', `modifies the noun "${d.next}"`);
  }
}

/** A capital past a name's first letter ("Bar Labs", "HubSpot"): the writer's, where the text keeps it. */
const INNER_CAPITAL = /[\p{L}\p{N}][^\p{L}\p{N}]*\p{Lu}/u;

/** An answer this long (a few sentences; every labelled answer is longer) would name other brands if it were about the site's trade. */
const LONG_ANSWER = 250;

/** How common a word the name is, in a few bands of its count in the frequency list (51 million words). */
function commonness(count: number): string {
  if (count === 0) return 'unknown';
  if (count < 20) return 'rare';
  if (count < 200) return 'uncommon';
  if (count < 2000) return 'common';
  return 'very-common';
}

/** Words that end or open the name of an organisation ("Ford Foundation", "Bank of America"): another one, or the brand's own full name. */
const ORGANISATION_WORDS = new Set(
  'inc corp corporation company co ltd llc plc group holdings foundation university college institute bank airlines airways motors labs technologies systems'.split(
    ' ',
  ),
);

/** Feature ids of the ways a name is marked as one (markedAsName's words). */
const MARKS: Record<string, string> = {
  'written in bold': 'mark:bold',
  'written in italics': 'mark:italics',
  'written as code or link text': 'mark:code-or-link',
  'in a heading': 'mark:heading',
  "in a table's first column": 'mark:table-first-column',
  'heads a list item': 'mark:list-head',
};

/** "X is the one built for this", "the one that": the one picked among others. */
function theOneThat(rest: readonly string[]): boolean {
  if (rest[1] !== 'the' || rest[2] !== 'one') return false;
  const w = rest[3] ?? '';
  return (
    w === 'that' ||
    w === 'which' ||
    w === 'to' ||
    w === 'for' ||
    w === 'i' ||
    w === 'we' ||
    w === 'you' ||
    w === 'most' ||
    w === 'built' ||
    w === 'made' ||
    w.endsWith('ed')
  );
}

/** Kinds of creative work whose title follows them ("the film Her", "the novel Pandora"). */
const WORK_NOUNS = new Set(
  'film films movie movies novel novels book books song songs album albums poem play opera musical painting series sitcom documentary episode'.split(
    ' ',
  ),
);

/** Words of closed classes (articles, auxiliaries, prepositions, conjunctions, pronouns) the tagger need not be asked about. */
const CLOSED_CLASS = new Set(
  'a an the this that these those is are was were be been being am has have had do does did will would can could should shall may might must and or but nor so yet of to in on at by for with from as into onto over under about than then if when while because although though it its he she they we you i me him her them us my your our their his not no'.split(
    ' ',
  ),
);

/** Words after the name the tagger reads: enough for the word after it and the adverbs before that. */
const TAG_WORDS = 6;

/**
 * The tag of the word after a sentence-start name (past adverbs), from wink-nlp over the sentence up to a few words
 * after the name: a tag depends on the words near it, and a shorter text costs less. Kept by offset for a second
 * reading of the occurrence; null once the answer's taggings are spent.
 */
function nextTag(text: string, start: number, end: number, evidence: AnswerEvidence): Pos | null {
  const { tagger } = evidence;
  const seen = tagger.seen.get(start);
  if (seen !== undefined) return seen;
  if (tagger.left <= 0) return null;
  tagger.left--;
  const sentence = evidence.sentenceOf();
  let stop = end;
  for (let words = 0; stop < sentence.end && words <= TAG_WORDS; stop++)
    if (text.charCodeAt(stop) === 32 && text.charCodeAt(stop - 1) !== 32) words++;
  const tag = posAround(
    text.slice(sentence.start, Math.min(stop, sentence.end)),
    start - sentence.start,
    end - sentence.start,
  ).next;
  tagger.seen.set(start, tag);
  return tag;
}

const DAY_LINKS = new Set('and or to through thru till until'.split(' '));
const DAY_NEAR =
  /\b(?:mon|tues|wednes|thurs|fri|satur|sun)days?\b|\b(?:january|february|april|june|july|august|september|october|november|december)\b/gi;

/** Another day or month within the sentence or the neighbouring lines: the list is of days. */
function otherDaysNear(text: string, start: number, end: number, folded: string): boolean {
  const from = Math.max(0, start - 120);
  const window = text.slice(from, Math.min(text.length, end + 120));
  DAY_NEAR.lastIndex = 0;
  for (let m = DAY_NEAR.exec(window); m !== null; m = DAY_NEAR.exec(window)) {
    const at = from + m.index;
    if (at !== start && m[0].toLowerCase().replace(/s$/, '') !== folded.replace(/s$/, '')) return true;
  }
  return false;
}

/** Inside `*Death and the Penguin*`: a title of several words set in italics. */
function insideItalicTitle(text: string, start: number, end: number, lineStart: number): boolean {
  let open = -1;
  for (let j = start - 1; j >= lineStart; j--)
    if (text.charCodeAt(j) === 42) {
      open = j;
      break;
    }
  if (open < 0 || text[open - 1] === '*' || text[open + 1] === '*' || text[open + 1] === ' ') return false;
  const close = findBefore(text, '*', end, lineEndNear(text, end));
  if (close < 0 || text[close + 1] === '*' || text[close - 1] === ' ') return false;
  return open < start - 1 || close > end;
}

/** Whether the sentence holding the name has no lower-case letter besides it: there, capitals say nothing. */
function allCapitalsAround(text: string, start: number, end: number, s: { start: number; end: number }): boolean {
  for (let i = s.start; i < s.end; i++) {
    if (i >= start && i < end) continue;
    const c = text[i] as string;
    if (c !== c.toUpperCase()) return false;
  }
  return true;
}

import { hostMatches, normaliseDomain } from './domains.ts';
import { siteTypeOf, type SiteType } from './site-types.ts';

/**
 * Query parameters that only say where a click came from. Removing them makes
 * the same page cited by two assistants one source.
 */
const TRACKING = new Set([
  'gclid',
  'dclid',
  'gbraid',
  'wbraid',
  'fbclid',
  'msclkid',
  'yclid',
  'twclid',
  'ttclid',
  'li_fat_id',
  'igshid',
  'igsh',
  'mc_cid',
  'mc_eid',
  '_hsenc',
  '_hsmi',
  'hsctatracking',
  'mkt_tok',
  'srsltid',
  'ref',
  'ref_src',
  'ref_url',
  'referrer',
  'source',
  'si',
  'spm',
  'trk',
  'trkcampaign',
  'ncid',
  'cmpid',
  'oly_enc_id',
  'oly_anon_id',
  'vero_id',
  'rb_clickid',
  's_cid',
  '_ga',
  '_gl',
]);

function isTracking(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith('utm_') || lower.startsWith('pk_') || lower.startsWith('mtm_') || TRACKING.has(lower);
}

export interface NormalisedUrl {
  /** canonical form: https, host without `www.`, no fragment, no tracking parameters, sorted query, no trailing slash */
  url: string;
  host: string;
}

const SIMPLE_URL = /^(https?):\/\/([a-z0-9.-]+)(:\d+)?(\/[^?#\s\u0080-\uffff]*)?(\?[^#\s\u0080-\uffff]*)?(#\S*)?$/i;

/**
 * The query without empty and tracking parameters, the rest sorted. Walks
 * the `&`-separated pairs with indexOf: the same pairs as
 * `query.slice(1).split('&')`, without the intermediate arrays, since every
 * citation has a query to clean.
 */
function cleanQuery(query: string): string {
  const kept: string[] = [];
  let start = 1;
  for (;;) {
    const amp = query.indexOf('&', start);
    const end = amp < 0 ? query.length : amp;
    if (end > start) {
      const pair = query.slice(start, end);
      const eq = pair.indexOf('=');
      if (!isTracking(eq < 0 ? pair : pair.slice(0, eq))) kept.push(pair);
    }
    if (amp < 0) break;
    start = amp + 1;
  }
  kept.sort();
  return kept.length === 0 ? '' : `?${kept.join('&')}`;
}

/** Null when the text is not an http(s) URL with a real host. */
export function normaliseUrl(raw: string): NormalisedUrl | null {
  let text = raw.trim();
  if (text === '') return null;
  // Plain ASCII http(s) URLs, nearly all citations, skip the scheme checks
  // (SIMPLE_URL implies a scheme) and the WHATWG parser.
  let simple = SIMPLE_URL.exec(text);
  if (simple === null) {
    if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
      if (text.startsWith('//')) text = `https:${text}`;
      else if (/^[^\s/:]+\.[^\s/:]+/.test(text)) text = `https://${text}`;
      else return null;
      simple = SIMPLE_URL.exec(text);
    }
  }
  let hostname: string;
  let port: string;
  let path: string;
  let query: string;
  if (simple !== null) {
    hostname = simple[2] ?? '';
    const p = simple[3];
    port = p === undefined || p === ':80' || p === ':443' ? '' : p;
    path = simple[4] ?? '';
    query = simple[5] === undefined ? '' : cleanQuery(simple[5]);
  } else {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return null;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    hostname = url.hostname;
    port = url.port === '' ? '' : `:${url.port}`;
    path = url.pathname;
    query = url.search === '' ? '' : cleanQuery(url.search);
  }
  const host = normaliseDomain(hostname);
  if (host === null) return null;
  // Cut with a loop: `path.replace(/\/+$/, '')` started at every "/" of a run and read the run from each (7 s for a path of 100,000 "/").
  let end = path.length;
  while (end > 0 && path.charCodeAt(end - 1) === 47) end--;
  if (end < path.length) path = path.slice(0, end);
  return { url: `https://${host}${port}${path}${query}`, host };
}

export interface CitationFact {
  url: string;
  normalizedUrl: string;
  title: string | null;
  domain: string;
  siteType: SiteType;
  competitorId: number | null;
}

export interface CitationBook {
  domain: string | null;
  /** domain -> competitor id */
  domainOwners: ReadonlyMap<string, number>;
}

/**
 * null for the brand's own domain, a competitor id, or undefined for anyone
 * else. The host and then its parent domains are looked up, most specific
 * first, so a competitor at labs.acme.com is not the brand at acme.com;
 * walking whole labels keeps notacme.com and acme.com.evil.io out.
 */
function ownerOf(host: string, book: CitationBook): number | null | undefined {
  let h = host;
  for (;;) {
    if (h === book.domain) return null;
    const id = book.domainOwners.get(h);
    if (id !== undefined) return id;
    const dot = h.indexOf('.');
    if (dot < 0) return undefined;
    h = h.slice(dot + 1);
  }
}

interface HostClass {
  siteType: SiteType;
  competitorId: number | null;
}

/**
 * Per book, the class of each host seen. Hosts repeat from answer to answer
 * (reddit.com, wikipedia.org), and the host string normaliseDomain returns
 * for one of them is the same memoised string each time, so one lookup here
 * replaces the walk over its parent domains. Bounded like that memo.
 */
const hostClasses = new WeakMap<CitationBook, Map<string, HostClass>>();
const HOST_CLASSES_MAX = 10_000;

function hostClassesOf(book: CitationBook): Map<string, HostClass> {
  let classes = hostClasses.get(book);
  if (classes === undefined) {
    classes = new Map();
    hostClasses.set(book, classes);
  }
  return classes;
}

function classify(host: string, book: CitationBook, classes: Map<string, HostClass>): HostClass {
  const known = classes.get(host);
  if (known !== undefined) return known;
  // The most specific domain wins, so a competitor at labs.acme.com is not the brand at acme.com.
  const owner = ownerOf(host, book);
  const hostClass: HostClass = {
    siteType: owner === undefined ? siteTypeOf(host) : owner === null ? 'own' : 'competitor',
    competitorId: owner ?? null,
  };
  if (classes.size >= HOST_CLASSES_MAX) classes.clear();
  classes.set(host, hostClass);
  return hostClass;
}

/**
 * One fact per citation, in the assistant's order. Citations that are not
 * http(s) URLs are kept (nothing an assistant returned is dropped) with an
 * empty domain and type `other`.
 */
/**
 * `domain`, when the provider gives one, is the source's own domain where the
 * URL hides it (Gemini cites through vertexaisearch redirect links and names
 * the source in the title): it then decides the host, not the redirect's.
 */
export function analyseCitations(
  citations: readonly { url: string; title?: string | null; domain?: string | null }[],
  book: CitationBook,
): CitationFact[] {
  const classes = hostClassesOf(book);
  return citations.map((c) => {
    const trimmed = c.title?.trim() ?? '';
    const title = trimmed === '' ? null : trimmed;
    const norm = normaliseUrl(c.url);
    const given = c.domain ? normaliseUrl(`https://${c.domain.trim()}/`) : null;
    const host = given && (!norm || !hostMatches(norm.host, given.host)) ? given.host : norm?.host;
    if (!host)
      return { url: c.url, normalizedUrl: c.url.trim(), title, domain: '', siteType: 'other', competitorId: null };
    const { siteType, competitorId } = classify(host, book, classes);
    return { url: c.url, normalizedUrl: norm?.url ?? c.url.trim(), title, domain: host, siteType, competitorId };
  });
}

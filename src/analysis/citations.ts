import { normaliseDomain } from './domains.ts';
import { siteTypeOf, type SiteType } from './site-types.ts';

/**
 * Query parameters that only say where a click came from. Removing them makes
 * the same page cited by two assistants one source.
 */
const TRACKING = new Set([
  'gclid', 'dclid', 'gbraid', 'wbraid', 'fbclid', 'msclkid', 'yclid', 'twclid', 'ttclid', 'li_fat_id',
  'igshid', 'igsh', 'mc_cid', 'mc_eid', '_hsenc', '_hsmi', 'hsctatracking', 'mkt_tok', 'srsltid',
  'ref', 'ref_src', 'ref_url', 'referrer', 'source', 'si', 'spm', 'trk', 'trkcampaign', 'ncid', 'cmpid', 'oly_enc_id', 'oly_anon_id', 'vero_id', 'rb_clickid', 's_cid', '_ga', '_gl',
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

function cleanQuery(query: string): string {
  const kept = query
    .slice(1)
    .split('&')
    .filter((pair) => pair !== '' && !isTracking(pair.split('=', 1)[0] ?? ''));
  kept.sort();
  return kept.length === 0 ? '' : `?${kept.join('&')}`;
}

/** Null when the text is not an http(s) URL with a real host. */
export function normaliseUrl(raw: string): NormalisedUrl | null {
  let text = raw.trim();
  if (text === '') return null;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    if (text.startsWith('//')) text = `https:${text}`;
    else if (/^[^\s/:]+\.[^\s/:]+/.test(text)) text = `https://${text}`;
    else return null;
  }
  // Plain ASCII URLs, nearly all citations, skip the WHATWG parser.
  const simple = SIMPLE_URL.exec(text);
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
  path = path.replace(/\/+$/, '');
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

/**
 * One fact per citation, in the assistant's order. Citations that are not
 * http(s) URLs are kept (nothing an assistant returned is dropped) with an
 * empty domain and type `other`.
 */
export function analyseCitations(citations: readonly { url: string; title?: string | null }[], book: CitationBook): CitationFact[] {
  return citations.map((c) => {
    const title = c.title == null || c.title.trim() === '' ? null : c.title.trim();
    const norm = normaliseUrl(c.url);
    if (norm === null) return { url: c.url, normalizedUrl: c.url.trim(), title, domain: '', siteType: 'other', competitorId: null };
    // The most specific domain wins, so a competitor at labs.acme.com is not the brand at acme.com.
    const owner = ownerOf(norm.host, book);
    const siteType: SiteType = owner === undefined ? siteTypeOf(norm.host) : owner === null ? 'own' : 'competitor';
    return { url: c.url, normalizedUrl: norm.url, title, domain: norm.host, siteType, competitorId: owner ?? null };
  });
}

import data from './site-types.json' with { type: 'json' };

export type SiteType = 'own' | 'competitor' | 'ugc' | 'review' | 'news' | 'reference' | 'social' | 'video' | 'other';

/** The kinds a data file can give; own and competitor depend on the brand book. */
export type KnownSiteType = Exclude<SiteType, 'own' | 'competitor' | 'other'>;

const KINDS: readonly KnownSiteType[] = ['ugc', 'review', 'news', 'reference', 'social', 'video'];

const BY_HOST = new Map<string, KnownSiteType>();
for (const kind of KINDS) for (const host of data[kind]) BY_HOST.set(host, kind);

/** Number of hosts the data file knows (documented as 300+). */
export const KNOWN_SITE_COUNT = BY_HOST.size;

/**
 * Kind of a host (already lower case, without `www.`) from the data file:
 * the host itself, else its parent domains, most specific first, so
 * `news.ycombinator.com` can differ from `ycombinator.com`.
 */
export function siteTypeOf(host: string): SiteType {
  let h = host;
  for (;;) {
    const kind = BY_HOST.get(h);
    if (kind !== undefined) return kind;
    const dot = h.indexOf('.');
    if (dot < 0 || h.indexOf('.', dot + 1) < 0) return 'other';
    h = h.slice(dot + 1);
  }
}

/**
 * The page a request is for: its path without query or fragment (so
 * `/pricing?utm_source=chatgpt.com` and `/pricing` are one page, and a
 * crawler walking `?sort=` links does not make a page per link), cut to
 * `PATH_MAX_CHARS`. An absolute-form target (`GET https://host/a`) gives its
 * path; `*` and other non-paths give null.
 */

export const PATH_MAX_CHARS = 1024;

export function pathOf(target: string): string | null {
  let path = target;
  if (path.charCodeAt(0) !== 47) {
    const scheme = path.indexOf('://');
    if (scheme < 0 || scheme > 10) return null;
    const slash = path.indexOf('/', scheme + 3);
    path = slash < 0 ? '/' : path.slice(slash);
  }
  let end = path.length;
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c === 63 || c === 35) {
      end = i;
      break;
    }
  }
  if (end > PATH_MAX_CHARS) end = PATH_MAX_CHARS;
  const out = end === path.length ? path : path.slice(0, end);
  // Postgres text holds neither NUL nor half a surrogate pair, which a JSON log can carry.
  return out.includes('\u0000') || !out.isWellFormed() ? out.replaceAll('\u0000', '\ufffd').toWellFormed() : out;
}

const ASSETS = new Set([
  'js',
  'mjs',
  'css',
  'map',
  'png',
  'jpg',
  'jpeg',
  'gif',
  'webp',
  'avif',
  'svg',
  'ico',
  'bmp',
  'woff',
  'woff2',
  'ttf',
  'otf',
  'eot',
  'mp4',
  'webm',
  'mp3',
  'wasm',
]);

const NOT_PAGES = new Set([
  '/robots.txt',
  '/llms.txt',
  '/llms-full.txt',
  '/favicon.ico',
  '/ads.txt',
  '/security.txt',
  '/.well-known/security.txt',
]);

/** A page a person reads: not a file a page loads, nor robots.txt, a sitemap, a feed or an API call. */
export function isPage(path: string): boolean {
  if (NOT_PAGES.has(path) || isAsset(path) || path.startsWith('/api/')) return false;
  const lower = path.toLowerCase();
  return !(
    lower.endsWith('.xml') ||
    lower.endsWith('.xml.gz') ||
    lower.endsWith('.json') ||
    lower.endsWith('.txt') ||
    lower.endsWith('.rss')
  );
}

/** A file a page loads (script, style, image, font), not a page a person lands on. */
export function isAsset(path: string): boolean {
  const dot = path.lastIndexOf('.');
  if (dot < 0 || dot < path.lastIndexOf('/')) return false;
  return ASSETS.has(path.slice(dot + 1).toLowerCase());
}

/**
 * The request target (`req.url`): its path as WHATWG URL parsing gives it,
 * and its query. Parsing a URL per request was a measurable share of
 * bench/http, so a plain path is taken as it is and a URL is built only for
 * other paths and for routes that read the query.
 */

/** Parsed as a path, never as a URL of its own: `//x` is a path here, not a host. */
const parse = (target: string) => new URL(`http://localhost${target.startsWith('/') ? '' : '/'}${target}`);

/** Segments of letters, digits and `-._~` that are not dot segments: URL parsing gives such a path back unchanged. */
const PLAIN_PATH = /^\/(?:[\w~-][\w.~-]*(?:\/|$))*$/;

/**
 * A path that is not valid percent-encoding (`/share/%FF`) is read literally,
 * so it reaches its route (which answers 404 for what it names) instead of
 * failing to match anything.
 */
function routablePath(pathname: string): string {
  try {
    decodeURIComponent(pathname);
    return pathname;
  } catch {
    return pathname.replaceAll('%', '%25');
  }
}

export interface Target {
  /** The path, as URL parsing gives it (what error messages quote). */
  path: string;
  /** The path the router is asked for. */
  routable: string;
  /** The query's parameters, parsed on first use. */
  query(): URLSearchParams;
}

export function parseTarget(target: string): Target {
  const queryAt = target.indexOf('?');
  const rawPath = queryAt < 0 ? target : target.slice(0, queryAt);
  if (PLAIN_PATH.test(rawPath)) return { path: rawPath, routable: rawPath, query: () => parse(target).searchParams };
  const url = parse(target);
  return { path: url.pathname, routable: routablePath(url.pathname), query: () => url.searchParams };
}

/**
 * What a span may say about a URL. Outbound calls carry credentials in
 * their query (SerpApi's `api_key`) and customer sites' URLs may carry
 * anything, so every query value is replaced; inbound, a path parameter
 * that is not an id (a share link's `:token`) is never shown.
 */

export const REDACTED = 'REDACTED';

/** The query with every value replaced (`?api_key=REDACTED&q=REDACTED`); names are kept, they say what was asked. */
export function redactQuery(search: string): string {
  if (search === '' || search === '?') return '';
  const params = new URLSearchParams(search.startsWith('?') ? search.slice(1) : search);
  const names = [...params.keys()];
  return names.length === 0 ? '' : `?${names.map((name) => `${encodeURIComponent(name)}=${REDACTED}`).join('&')}`;
}

/** An absolute URL with its query values replaced and any user and password dropped; what cannot be parsed is not shown at all. */
export function redactUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return REDACTED;
  }
  return `${parsed.protocol}//${parsed.host}${parsed.pathname}${redactQuery(parsed.search)}`;
}

/** Path parameters the server reads as ids (src/http/server.ts): numbers, safe to show. */
const ID_PARAM = /^(id|[a-z]+Id)$/;

/** Whether a route template has a parameter that is not an id (`/share/:token`): its requests' paths are shown as the template. */
export function hasSecretParam(routePath: string): boolean {
  return routePath.split('/').some((segment) => segment.startsWith(':') && !ID_PARAM.test(segment.slice(1)));
}

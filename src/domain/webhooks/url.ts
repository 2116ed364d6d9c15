import type { AppContext } from '../../context.ts';
import { ValidationError } from '../../errors.ts';
import { SiteFetchError } from '../../web/fetch-error.ts';
import { siteFetcherFor } from '../../web/site-fetch.ts';

/**
 * A webhook's address, checked when it is saved by the guard every delivery
 * goes through (src/web/site-fetch.ts): https only, on port 443, and a host
 * that is a public address or resolves only to public ones (a SITE_FETCH_MAP
 * host is taken as mapped). Every delivery checks again, since DNS may
 * answer otherwise later. Refusals are a 422 naming `url`.
 */
export async function checkWebhookUrl(ctx: AppContext, raw: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ValidationError({ url: 'must be an absolute https address' });
  }
  if (url.protocol !== 'https:') throw new ValidationError({ url: 'must be an https address' });
  if (url.port !== '' && url.port !== '443') throw new ValidationError({ url: 'must use the https port, 443' });
  if (url.username || url.password) throw new ValidationError({ url: 'must not carry a user name or password' });
  url.hash = '';
  try {
    await siteFetcherFor(ctx.config, ctx.logger).target(url);
  } catch (err) {
    if (err instanceof SiteFetchError) throw new ValidationError({ url: `not accepted: ${err.message}` });
    throw err;
  }
  return url.href;
}

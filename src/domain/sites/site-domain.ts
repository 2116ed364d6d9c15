import { parse } from 'tldts';

/**
 * Turns what a person types as a site address (`acme.com`, `www.acme.com`,
 * `https://www.acme.com/en/`) into the site's domain: its host without `www.`.
 * Returns null for anything that is not a registrable public domain: IPs,
 * `localhost`, single labels, hosts without a known public suffix.
 */
export function domainFromAddress(input: string): string | null {
  const trimmed = input.trim();
  if (!trimmed || /\s/.test(trimmed)) return null;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(trimmed) ? trimmed : `http://${trimmed}`;
  let host: string;
  try {
    const url = new URL(withScheme);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    // "mailto:a@acme.com" parses as user "mailto", password "a": an address with credentials is no site.
    if (url.username || url.password) return null;
    host = url.hostname.replace(/\.$/, '');
  } catch {
    return null;
  }
  const parsed = parse(host);
  if (parsed.isIp || !parsed.isIcann || !parsed.domain || !parsed.hostname) return null;
  return parsed.hostname.replace(/^www\./, '');
}

/**
 * Where the site is fetched from (robots.txt, llms.txt, /sitemap.xml):
 * `https://` and the host of the address the site was created with
 * (`www.acme.com` when typed so), or its domain when that host is not on it.
 */
export function siteOrigin(site: { url: string; domain: string }): string {
  const typed = site.url.trim();
  try {
    const host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(typed) ? typed : `https://${typed}`).hostname
      .replace(/\.$/, '')
      .toLowerCase();
    if (host === site.domain || host.endsWith(`.${site.domain}`)) return `https://${host}`;
  } catch {
    // The domain was derived from this address, so it parses; the domain is the fallback anyway.
  }
  return `https://${site.domain}`;
}

import { parse } from 'tldts';

const TLD_OPTIONS = { allowPrivateDomains: true } as const;

/**
 * The host a brand book or a citation is matched on: lower case, no `www.`,
 * no trailing dot. Accepts a bare domain or a URL. Null for IPs, single labels,
 * hosts without a known public suffix and bare public suffixes (`co.uk`),
 * which would otherwise match every site under them.
 */
const memo = new Map<string, string | null>();
const MEMO_MAX = 10_000;

export function normaliseDomain(input: string): string | null {
  // Cited hosts repeat across answers (reddit.com, wikipedia.org): parse each once.
  const known = memo.get(input);
  if (known !== undefined) return known;
  const result = parseDomain(input);
  if (memo.size >= MEMO_MAX) memo.clear();
  memo.set(input, result);
  return result;
}

function parseDomain(input: string): string | null {
  const trimmed = input.trim().toLowerCase();
  if (trimmed === '') return null;
  const parsed = parse(trimmed, TLD_OPTIONS);
  if (parsed.isIp || parsed.hostname === null || parsed.domain === null) return null;
  // tldts treats an unknown last label as a suffix; only listed suffixes make a domain.
  if (parsed.isIcann !== true && parsed.isPrivate !== true) return null;
  return stripWww(parsed.hostname.replace(/\.$/, ''));
}

/** Registrable domain (eTLD+1) of a host, e.g. `en.wikipedia.org` -> `wikipedia.org`. */
export function registrableDomain(host: string): string | null {
  return parse(host, TLD_OPTIONS).domain;
}

export function stripWww(host: string): string {
  return host.startsWith('www.') ? host.slice(4) : host;
}

/**
 * A host belongs to a domain when it is the domain or ends with `.domain`:
 * the dot keeps `notacme.com` and `acme.com.evil.io` out.
 */
export function hostMatches(host: string, domain: string): boolean {
  return (
    host === domain ||
    (host.length > domain.length && host.endsWith(domain) && host.charCodeAt(host.length - domain.length - 1) === 46)
  );
}

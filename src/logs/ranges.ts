import { BlockList, isIP } from 'node:net';

/**
 * The address ranges AI companies publish for their crawlers, and whether a
 * hit came from them. A User-Agent is a claim anyone can make; a hit from
 * the agent's own published ranges is `verified`, one from elsewhere while
 * ranges are loaded for the agent is `spoofed`, and a hit of an agent with
 * no ranges loaded (or a log without addresses) is `unverifiable`.
 *
 * The files are the companies' own (Google's googlebot.json, OpenAI's
 * gptbot.json, Bing's bingbot.json, Perplexity's and Apple's, listed in
 * src/web/ai-crawlers.ts): `{"creationTime": ..., "prefixes": [{"ipv4Prefix":
 * "66.249.64.0/27"}, {"ipv6Prefix": "2001:4860:4801:10::/64"}]}`. A JSON
 * array of prefixes, or text with one prefix a line, is read too.
 */

export type Verification = 'verified' | 'spoofed' | 'unverifiable';

/** Prefixes read from one file at most: the largest published list has a few hundred. */
export const MAX_PREFIXES = 100_000;

export class RangesFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RangesFileError';
  }
}

/** `66.249.64.0/27` or `2001:db8::/32` in canonical form, or null when it is not a prefix. */
export function canonicalPrefix(text: string): string | null {
  const slash = text.indexOf('/');
  const address = (slash < 0 ? text : text.slice(0, slash)).trim().toLowerCase();
  const family = isIP(address);
  if (!family) return null;
  const bitsText = slash < 0 ? String(family === 4 ? 32 : 128) : text.slice(slash + 1).trim();
  if (!/^\d{1,3}$/.test(bitsText)) return null;
  const bits = Number(bitsText);
  if (bits > (family === 4 ? 32 : 128)) return null;
  return `${address}/${bits}`;
}

/** The prefixes of a published ranges file, canonical and without repeats. */
export function parseRangesFile(text: string): { prefixes: string[]; createdAt: string | null } {
  const found: unknown[] = [];
  let createdAt: string | null = null;
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    let json: unknown;
    try {
      json = JSON.parse(trimmed);
    } catch (err) {
      throw new RangesFileError(`not JSON: ${(err as Error).message}`);
    }
    if (Array.isArray(json)) found.push(...json);
    else if (json && typeof json === 'object') {
      const o = json as Record<string, unknown>;
      if (typeof o.creationTime === 'string') createdAt = o.creationTime;
      const lists = [o.prefixes, o.ipv6_prefixes].filter(Array.isArray) as unknown[][];
      if (lists.length === 0)
        throw new RangesFileError('no "prefixes" list (the format of googlebot.json, gptbot.json, bingbot.json...)');
      for (const list of lists)
        for (const item of list) {
          if (typeof item === 'string') found.push(item);
          else if (item && typeof item === 'object') {
            const p = item as Record<string, unknown>;
            found.push(p.ipv4Prefix ?? p.ipv6Prefix ?? p.ip_prefix ?? p.ipv6_prefix);
          }
        }
    }
  } else {
    for (const line of trimmed.split('\n')) {
      const t = line.replace(/#.*/, '').trim();
      if (t) found.push(t);
    }
  }
  if (found.length > MAX_PREFIXES)
    throw new RangesFileError(`more than ${MAX_PREFIXES.toLocaleString('en-US')} prefixes`);
  const prefixes = new Set<string>();
  for (const [i, item] of found.entries()) {
    const p = typeof item === 'string' ? canonicalPrefix(item) : null;
    if (!p) throw new RangesFileError(`entry ${i + 1} is not an address prefix: ${JSON.stringify(item)?.slice(0, 80)}`);
    prefixes.add(p);
  }
  if (prefixes.size === 0) throw new RangesFileError('no address prefixes in the file');
  return { prefixes: [...prefixes], createdAt };
}

/** A logged client address as `BlockList` takes it: brackets and a port dropped, an IPv4-mapped IPv6 address as IPv4. */
function addressOf(ip: string): { address: string; family: 'ipv4' | 'ipv6' } | null {
  let a = ip.trim();
  if (a.startsWith('[')) a = a.slice(1, a.indexOf(']') < 0 ? undefined : a.indexOf(']'));
  else if (a.includes('.') && a.indexOf(':') === a.lastIndexOf(':') && a.includes(':')) a = a.slice(0, a.indexOf(':'));
  if (a.toLowerCase().startsWith('::ffff:') && a.includes('.')) a = a.slice(7);
  const family = isIP(a);
  return family ? { address: a, family: family === 4 ? 'ipv4' : 'ipv6' } : null;
}

const CACHE_MAX = 50_000;

/** Every loaded agent's ranges, checked in memory. */
export class AddressRanges {
  private readonly lists = new Map<string, BlockList>();
  private readonly cache = new Map<string, Verification>();

  constructor(rows: readonly { agent: string; prefix: string }[]) {
    for (const { agent, prefix } of rows) {
      let list = this.lists.get(agent);
      if (!list) this.lists.set(agent, (list = new BlockList()));
      const [address, bits] = prefix.split('/') as [string, string];
      list.addSubnet(address, Number(bits), isIP(address) === 6 ? 'ipv6' : 'ipv4');
    }
  }

  /** Whether ranges are loaded for the agent. */
  covers(agent: string): boolean {
    return this.lists.has(agent);
  }

  check(agent: string, ip: string | null): Verification {
    const list = this.lists.get(agent);
    if (!list || !ip) return 'unverifiable';
    const key = `${agent} ${ip}`;
    const known = this.cache.get(key);
    if (known) return known;
    const a = addressOf(ip);
    const result: Verification = !a ? 'unverifiable' : list.check(a.address, a.family) ? 'verified' : 'spoofed';
    if (ip.length <= 64) {
      if (this.cache.size >= CACHE_MAX) this.cache.clear();
      this.cache.set(key, result);
    }
    return result;
  }
}

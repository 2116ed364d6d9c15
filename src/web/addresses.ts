import { BlockList, isIPv4, isIPv6 } from 'node:net';

/**
 * Which addresses a fetch of a customer's site may connect to. Everything
 * that is not globally reachable unicast is refused: an attacker who can
 * name a site (or make it redirect) must not reach our own network, the
 * machine itself or a cloud metadata service. Ranges from the IANA
 * special-purpose registries (RFC 6890 and successors).
 */

interface Range {
  network: string;
  prefix: number;
  why: string;
}

const V4: Range[] = [
  { network: '0.0.0.0', prefix: 8, why: 'a "this network" address' },
  { network: '10.0.0.0', prefix: 8, why: 'a private address' },
  { network: '100.64.0.0', prefix: 10, why: 'a carrier-grade NAT address' },
  { network: '127.0.0.0', prefix: 8, why: 'a loopback address' },
  { network: '169.254.0.0', prefix: 16, why: 'a link-local address (cloud metadata lives here)' },
  { network: '172.16.0.0', prefix: 12, why: 'a private address' },
  { network: '192.0.0.0', prefix: 24, why: 'an IETF protocol address' },
  { network: '192.0.2.0', prefix: 24, why: 'a documentation address' },
  { network: '192.88.99.0', prefix: 24, why: 'a 6to4 relay address' },
  { network: '192.168.0.0', prefix: 16, why: 'a private address' },
  { network: '198.18.0.0', prefix: 15, why: 'a benchmarking address' },
  { network: '198.51.100.0', prefix: 24, why: 'a documentation address' },
  { network: '203.0.113.0', prefix: 24, why: 'a documentation address' },
  { network: '224.0.0.0', prefix: 4, why: 'a multicast address' },
  { network: '240.0.0.0', prefix: 4, why: 'a reserved address' },
  // Public addresses that answer as a cloud's metadata or host service inside its VMs.
  { network: '168.63.129.16', prefix: 32, why: 'a cloud metadata address' },
];

const V6: Range[] = [
  { network: '::', prefix: 128, why: 'the unspecified address' },
  { network: '::1', prefix: 128, why: 'a loopback address' },
  { network: '100::', prefix: 64, why: 'a discard-only address' },
  { network: '2001::', prefix: 32, why: 'a Teredo tunnel address' },
  { network: '2001:2::', prefix: 48, why: 'a benchmarking address' },
  { network: '2001:db8::', prefix: 32, why: 'a documentation address' },
  { network: '2001:10::', prefix: 28, why: 'an ORCHID address' },
  { network: '2001:20::', prefix: 28, why: 'an ORCHID address' },
  { network: '3fff::', prefix: 20, why: 'a documentation address' },
  { network: '5f00::', prefix: 16, why: 'a segment routing address' },
  { network: 'fc00::', prefix: 7, why: 'a private (unique local) address' },
  { network: 'fe80::', prefix: 10, why: 'a link-local address' },
  { network: 'fec0::', prefix: 10, why: 'a site-local address' },
  { network: 'ff00::', prefix: 8, why: 'a multicast address' },
];

function listOf(
  ranges: Range[],
  family: 'ipv4' | 'ipv6',
): { list: BlockList; why: (address: string) => string | null } {
  const list = new BlockList();
  const singles = ranges.map((r) => {
    const one = new BlockList();
    one.addSubnet(r.network, r.prefix, family);
    list.addSubnet(r.network, r.prefix, family);
    return { one, why: r.why };
  });
  return {
    list,
    why: (address) =>
      list.check(address, family)
        ? (singles.find((s) => s.one.check(address, family))?.why ?? 'not a public address')
        : null,
  };
}

const v4 = listOf(V4, 'ipv4');
const v6 = listOf(V6, 'ipv6');

/** Parses the eight 16-bit groups of an IPv6 address (with `::` and a dotted IPv4 tail). */
function ipv6Groups(address: string): number[] | null {
  let text = address.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  const dotted = text.slice(lastColon + 1);
  if (dotted.includes('.')) {
    if (!isIPv4(dotted)) return null;
    const [a, b, c, d] = dotted.split('.').map(Number) as [number, number, number, number];
    tail.push((a << 8) | b, (c << 8) | d);
    text = `${text.slice(0, lastColon + 1)}0:0`;
  }
  const [head, rest] = text.includes('::') ? (text.split('::') as [string, string]) : [text, null];
  const parse = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const first = parse(head);
  const last = rest === null ? [] : parse(rest);
  const fill = rest === null ? 0 : 8 - first.length - last.length;
  if (fill < 0) return null;
  const groups = [...first, ...new Array<number>(fill).fill(0), ...last];
  if (groups.length !== 8 || groups.some((g) => !Number.isInteger(g) || g < 0 || g > 0xffff)) return null;
  if (tail.length) groups.splice(6, 2, ...tail);
  return groups;
}

const dottedOf = (hi: number, lo: number) => `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;

/**
 * The IPv4 address an IPv6 address carries and would reach: IPv4-mapped
 * (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`), NAT64 (`64:ff9b::/96`)
 * and 6to4 (`2002::/16`). Null when it carries none.
 */
export function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (!g) return null;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return dottedOf(g[6] as number, g[7] as number);
  if (zeros(0, 6) && ((g[6] as number) !== 0 || (g[7] as number) > 1)) return dottedOf(g[6] as number, g[7] as number);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return dottedOf(g[6] as number, g[7] as number);
  if (g[0] === 0x2002) return dottedOf(g[1] as number, g[2] as number);
  return null;
}

/**
 * Why an address may not be fetched ("a loopback address"), or null when it
 * is a public unicast address. Anything that does not parse is refused.
 */
export function refusedAddress(address: string): string | null {
  if (isIPv4(address)) return v4.why(address);
  if (!isIPv6(address)) return 'not an IP address';
  const inner = embeddedIpv4(address);
  if (inner !== null) {
    const why = v4.why(inner);
    if (why) return `${why} (${inner} inside an IPv6 address)`;
  }
  return v6.why(address.split('%')[0] as string);
}

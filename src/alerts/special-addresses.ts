/**
 * Which IP addresses an alert may never be sent to: every range that IANA's special-purpose
 * address registries (RFC 6890 and their updates) mark as not globally reachable, with multicast
 * and the reserved 240.0.0.0/4, in both families; and every IPv6 form that embeds an IPv4 address
 * (RFC 6052) judged by the address it embeds, so that `::ffff:127.0.0.1`, `64:ff9b::7f00:1` or the
 * 6to4 `2002:7f00:1::` are loopback as much as `127.0.0.1`. The ranges are checked by Node's
 * net.BlockList; only the embedded address is taken out by hand, from the canonical form the URL
 * parser writes.
 */
import { BlockList, isIP } from 'node:net';

const IPV4 = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier-grade NAT)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // deprecated 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the limited broadcast 255.255.255.255
] as const)
  IPV4.addSubnet(network, prefix, 'ipv4');

const IPV6 = new BlockList();
for (const [network, prefix] of [
  ['::', 96], // unspecified, loopback and the deprecated IPv4-compatible ::a.b.c.d
  ['64:ff9b:1::', 48], // local-use IPv4/IPv6 translation: the embedding is the network's own
  ['100::', 64], // discard-only
  ['100:0:0:1::', 64], // dummy prefix
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32, benchmarking 2001:2::/48...
  ['2001:db8::', 32], // documentation
  ['3fff::', 20], // documentation
  ['5f00::', 16], // segment routing (SRv6) SIDs
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // deprecated site-local
  ['ff00::', 8], // multicast
] as const)
  IPV6.addSubnet(network, prefix, 'ipv6');

/**
 * The IPv6 prefixes that embed an IPv4 address, and where: the 16-bit words (of eight) that hold
 * it. Teredo and the IPv4-compatible form are refused whole above instead (the first is obfuscated
 * and deprecated, the second deprecated).
 */
const EMBEDDING: ReadonlyArray<{ readonly prefix: readonly number[]; readonly at: number }> = [
  { prefix: [0, 0, 0, 0, 0, 0xffff], at: 6 }, // IPv4-mapped ::ffff:0:0/96
  { prefix: [0, 0, 0, 0, 0xffff, 0], at: 6 }, // IPv4-translated (SIIT) ::ffff:0:0:0/96
  { prefix: [0x64, 0xff9b, 0, 0, 0, 0], at: 6 }, // NAT64 well-known prefix 64:ff9b::/96
  { prefix: [0x2002], at: 1 }, // 6to4 2002::/16
];

/** The eight 16-bit words of an IPv6 address, or undefined if it is not one. */
function ipv6Words(address: string): number[] | undefined {
  let canonical: string;
  try {
    // The WHATWG URL parser writes an IPv6 address in one canonical form: hexadecimal words, the
    // longest run of zero words as `::`, no embedded dotted quad, no zone.
    canonical = new URL(`http://[${address.replace(/%.*$/, '')}]/`).hostname.slice(1, -1);
  } catch {
    return undefined;
  }
  const [head, tail] = canonical.split('::') as [string, string | undefined];
  const words = (part: string | undefined) =>
    part ? part.split(':').map((w) => Number.parseInt(w, 16)) : [];
  const first = words(head);
  if (tail === undefined) return first;
  const last = words(tail);
  return [...first, ...Array<number>(8 - first.length - last.length).fill(0), ...last];
}

/** The IPv4 address an IPv6 address embeds, if it is of one of the embedding forms. */
function embeddedIpv4(words: readonly number[]): string | undefined {
  for (const { prefix, at } of EMBEDDING) {
    if (prefix.every((word, i) => words[i] === word)) {
      const [high, low] = [words[at]!, words[at + 1]!];
      return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
    }
  }
  return undefined;
}

/**
 * Whether an address is one an alert may not be sent to: loopback, private, link-local, shared,
 * documentation, benchmarking, reserved, multicast or unspecified, in IPv4, in IPv6, or embedded
 * in IPv6. Anything that is not an IP address is refused too.
 */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address.replace(/%.*$/, ''));
  if (family === 4) return IPV4.check(address, 'ipv4');
  if (family !== 6) return true;
  const words = ipv6Words(address);
  if (words?.length !== 8) return true;
  const embedded = embeddedIpv4(words);
  if (embedded !== undefined) return IPV4.check(embedded, 'ipv4');
  return IPV6.check(words.map((w) => w.toString(16)).join(':'), 'ipv6');
}

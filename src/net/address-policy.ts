import { inRange, parseIp, parseRange, v4FromWords, type IpAddress, type IpRange } from './ip-address.js';

/**
 * Which network addresses the gateway may connect to on a caller's behalf (remote images).
 * The default refuses everything that is not the public internet: private, loopback,
 * link-local (which holds the cloud metadata address 169.254.169.254), shared, reserved,
 * multicast, documentation and the IPv6 equivalents. An IPv6 address that carries an IPv4
 * address (mapped, compatible, translated, NAT64, 6to4, Teredo) is judged by that IPv4
 * address, whatever the spelling of either.
 */
export interface AddressPolicy {
  allows(address: string): boolean;
}

const ranges = (cidrs: readonly string[]): IpRange[] =>
  cidrs.map((cidr) => {
    const range = parseRange(cidr);
    if (!range) throw new Error(`not an IP range: ${cidr}`);
    return range;
  });

const V4_REFUSED = ranges([
  '0.0.0.0/8', // "this" network
  '10.0.0.0/8', // private
  '100.64.0.0/10', // shared address space (carrier NAT; also a cloud metadata address)
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local, cloud metadata (169.254.169.254)
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation
  '192.88.99.0/24', // 6to4 relay anycast
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation
  '203.0.113.0/24', // documentation
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and the broadcast address 255.255.255.255
]);

/**
 * Only global unicast (2000::/3) can be the public internet; everything outside it is refused
 * without a list: unspecified `::`, loopback `::1`, discard 100::/64, unique-local fc00::/7
 * (which holds fd00:ec2::254, a cloud metadata address), link-local fe80::/10, site-local
 * fec0::/10, multicast ff00::/8. Inside it, these are not the public internet either:
 */
const V6_GLOBAL_UNICAST = ranges(['2000::/3']);
const V6_REFUSED = ranges([
  '2001::/23', // IETF protocol assignments: benchmarking 2001:2::/48, ORCHID 2001:10::/28 and 2001:20::/28, … (Teredo, 2001::/32, is judged by its IPv4 below)
  '2001:db8::/32', // documentation
  '3fff::/20', // documentation (RFC 9637)
  '5f00::/16', // segment routing (SRv6) SIDs
]);

const v4 = (value: number): IpAddress => ({ version: 4, value });
const zero = (words: readonly number[], from: number, to: number): boolean => words.slice(from, to).every((word) => word === 0);

/**
 * The IPv4 addresses an IPv6 address stands for or carries, or null when it carries none.
 * Local-use NAT64 (64:ff9b:1::/48) is refused whole instead: where its IPv4 address sits
 * depends on a prefix length only the local network knows.
 */
function embeddedV4(words: readonly number[]): IpAddress[] | 'refused' | null {
  const [w0, w1, w2, w3, w4, w5, w6, w7] = words as [number, number, number, number, number, number, number, number];
  const last = v4(v4FromWords(w6, w7));
  if (zero(words, 0, 5) && (w5 === 0 || w5 === 0xffff)) return [last]; // compatible ::a.b.c.d (also :: and ::1), mapped ::ffff:a.b.c.d
  if (zero(words, 0, 4) && w4 === 0xffff && w5 === 0) return [last]; // translated ::ffff:0:a.b.c.d
  if (w0 === 0x64 && w1 === 0xff9b && zero(words, 2, 6)) return [last]; // NAT64 64:ff9b::/96
  if (w0 === 0x64 && w1 === 0xff9b && w2 === 1) return 'refused'; // local-use NAT64 64:ff9b:1::/48
  if (w0 === 0x2002) return [v4(v4FromWords(w1, w2))]; // 6to4 2002:AABB:CCDD::/48
  // Teredo 2001:0::/32: the server's address, then the client's, stored inverted.
  if (w0 === 0x2001 && w1 === 0) return [v4(v4FromWords(w2, w3)), v4(v4FromWords(w6 ^ 0xffff, w7 ^ 0xffff))];
  return null;
}

const publicV4 = (address: IpAddress): boolean => !V4_REFUSED.some((range) => inRange(address, range));

/** The addresses to judge for `address` (itself, or the IPv4 addresses it carries), or null when it is refused outright. */
function judged(address: IpAddress): IpAddress[] | null {
  if (address.version === 4) return [address];
  const carried = embeddedV4(address.words);
  return carried === 'refused' ? null : (carried ?? [address]);
}

function isPublic(address: IpAddress): boolean {
  if (address.version === 4) return publicV4(address);
  return V6_GLOBAL_UNICAST.some((range) => inRange(address, range)) && !V6_REFUSED.some((range) => inRange(address, range));
}

function policy(opened: readonly IpRange[]): AddressPolicy {
  return {
    allows(text) {
      const address = parseIp(text);
      const addresses = address ? judged(address) : null;
      return addresses?.every((one) => opened.some((range) => inRange(one, range)) || isPublic(one)) ?? false;
    },
  };
}

export const publicAddressPolicy: AddressPolicy = policy([]);

/**
 * The public internet plus the given CIDR ranges (e.g. an internal image host an operator
 * trusts, or 127.0.0.1/32 in a test). Ranges are `address/prefix`, IPv4 or IPv6; an IPv6
 * address carrying an IPv4 one is matched by its IPv4 address.
 */
export function policyAllowing(cidrs: readonly string[]): AddressPolicy {
  return cidrs.length ? policy(ranges(cidrs)) : publicAddressPolicy;
}

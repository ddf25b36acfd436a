import { BlockList, isIP } from 'node:net';

/**
 * Which network addresses the gateway may connect to on a caller's behalf (remote images).
 * The default refuses everything that is not the public internet: private, loopback,
 * link-local (which holds the cloud metadata address 169.254.169.254), shared, reserved,
 * multicast and the IPv6 equivalents, including IPv4 addresses embedded in IPv6.
 */
export interface AddressPolicy {
  allows(address: string): boolean;
}

const V4_REFUSED: Array<[string, number]> = [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // shared address space (carrier NAT; also a cloud metadata address)
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local, cloud metadata
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
];

const V6_REFUSED: Array<[string, number]> = [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local (holds fd00:ec2::254, a cloud metadata address)
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
];

function blockList(v4: Array<[string, number]>, v6: Array<[string, number]>): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of v4) list.addSubnet(network, prefix, 'ipv4');
  for (const [network, prefix] of v6) list.addSubnet(network, prefix, 'ipv6');
  return list;
}

const REFUSED = blockList(V4_REFUSED, V6_REFUSED);

/** The IPv4 address inside an IPv4-mapped, -compatible or NAT64 IPv6 address, if any. */
function embeddedV4(address: string): string | null {
  const match = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (match) return match[1] as string;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!hex) return null;
  const high = parseInt(hex[1] as string, 16);
  const low = parseInt(hex[2] as string, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
}

function publicOnly(address: string): boolean {
  const version = isIP(address);
  if (version === 4) return !REFUSED.check(address, 'ipv4');
  if (version !== 6) return false;
  const v4 = embeddedV4(address.toLowerCase());
  if (v4 !== null) return !REFUSED.check(v4, 'ipv4');
  return !REFUSED.check(address, 'ipv6');
}

export const publicAddressPolicy: AddressPolicy = { allows: publicOnly };

/**
 * The public internet plus the given CIDR ranges (e.g. an internal image host an operator
 * trusts, or 127.0.0.1/32 in a test). Ranges are `address/prefix`, IPv4 or IPv6.
 */
export function policyAllowing(cidrs: readonly string[], base: AddressPolicy = publicAddressPolicy): AddressPolicy {
  if (!cidrs.length) return base;
  const allowed = new BlockList();
  for (const cidr of cidrs) {
    const [network, prefix] = cidr.split('/');
    const version = isIP(network ?? '');
    if (!version) throw new Error(`not an IP range: ${cidr}`);
    allowed.addSubnet(network as string, Number(prefix ?? (version === 4 ? 32 : 128)), version === 4 ? 'ipv4' : 'ipv6');
  }
  return {
    allows: (address) => {
      const version = isIP(address);
      return (version !== 0 && allowed.check(address, version === 4 ? 'ipv4' : 'ipv6')) || base.allows(address);
    },
  };
}

import { isIP } from 'node:net';

/**
 * IP addresses as numbers, whatever their spelling, so that the address policy judges the
 * address and not the way it is written: IPv4 as an unsigned 32-bit integer, IPv6 as its
 * eight 16-bit words.
 */
export type IpAddress = { version: 4; value: number } | { version: 6; words: readonly number[] };

/** One part of an IPv4 address as inet_aton and the WHATWG URL parser read it: decimal, 0x hex or 0-prefixed octal. */
function ipv4Part(part: string): number | null {
  if (part.length > 34) return null;
  if (/^0x[0-9a-f]*$/i.test(part)) return part.length === 2 ? 0 : parseInt(part.slice(2), 16);
  if (/^0[0-7]+$/.test(part)) return parseInt(part, 8);
  if (/^(?:0|[1-9][0-9]*)$/.test(part)) return Number(part);
  return null;
}

/**
 * IPv4 in every spelling getaddrinfo and browsers accept, not only the dotted quad:
 * `2130706433`, `0x7f.1`, `017700000001`, `127.1` and a trailing dot are all 127.0.0.1.
 * The last part fills the bytes the earlier ones left.
 */
export function parseIPv4(text: string): number | null {
  const parts = text.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  if (parts.length > 4) return null;
  const numbers: number[] = [];
  for (const part of parts) {
    const value = ipv4Part(part);
    if (value === null) return null;
    numbers.push(value);
  }
  const last = numbers.pop() as number;
  if (numbers.some((value) => value > 255) || last >= 256 ** (4 - numbers.length)) return null;
  return numbers.reduce((sum, value, index) => sum + value * 256 ** (3 - index), last);
}

/** IPv6 (brackets and a zone id allowed, an embedded dotted quad too) as eight words. */
export function parseIPv6(text: string): number[] | null {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  if (isIP(bare) !== 6) return null;
  let hex = bare;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(bare);
  if (dotted) {
    const v4 = parseIPv4(dotted[1] as string) as number;
    hex = `${bare.slice(0, dotted.index)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = hex.split('::');
  const groups = (side: string): number[] => (side === '' ? [] : side.split(':').map((group) => parseInt(group, 16)));
  const front = groups(head);
  if (tail === undefined) return front;
  const back = groups(tail);
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

export function parseIp(text: string): IpAddress | null {
  const value = parseIPv4(text);
  if (value !== null) return { version: 4, value };
  const words = parseIPv6(text);
  return words ? { version: 6, words } : null;
}

/** The IPv4 address held in two IPv6 words. */
export const v4FromWords = (high: number, low: number): number => high * 65536 + low;

/** A range `address/prefix`, the address parsed as above. */
export interface IpRange {
  address: IpAddress;
  prefix: number;
}

export function parseRange(cidr: string): IpRange | null {
  const [network = '', prefixText, extra] = cidr.split('/');
  const address = parseIp(network);
  if (!address || extra !== undefined) return null;
  const bits = address.version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
  return prefix >= 0 && prefix <= bits ? { address, prefix } : null;
}

/** Whether the first `prefix` bits of two addresses of the same version agree. */
export function inRange(address: IpAddress, range: IpRange): boolean {
  const net = range.address;
  if (address.version === 4 && net.version === 4) {
    return range.prefix === 0 || address.value >>> (32 - range.prefix) === net.value >>> (32 - range.prefix);
  }
  if (address.version !== 6 || net.version !== 6) return false;
  for (let bit = 0; bit < range.prefix; bit += 16) {
    const width = Math.min(16, range.prefix - bit);
    const shift = 16 - width;
    const index = bit / 16;
    if ((address.words[index] as number) >>> shift !== (net.words[index] as number) >>> shift) return false;
  }
  return true;
}

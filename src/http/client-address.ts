import type { IncomingMessage } from 'node:http';
import { inRange, parseIp, parseRange, v4FromWords, type IpAddress, type IpRange } from '../net/ip-address.js';

/** The longest unparsable X-Forwarded-For entry kept as an address (a trusted proxy's mistake). */
const MAX_RAW_CHARS = 64;

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`, how a dual-stack socket shows an IPv4 peer) as IPv4. */
function unmapped(address: IpAddress): IpAddress {
  if (address.version === 4) return address;
  const w = address.words;
  const mapped = w.slice(0, 5).every((word) => word === 0) && w[5] === 0xffff;
  return mapped ? { version: 4, value: v4FromWords(w[6] as number, w[7] as number) } : address;
}

/** An address as the gateway names it: dotted IPv4, else eight IPv6 words in hex. */
function canonical(address: IpAddress): string {
  const one = unmapped(address);
  if (one.version === 4) return [24, 16, 8, 0].map((shift) => (one.value >>> shift) & 255).join('.');
  return one.words.map((word) => word.toString(16)).join(':');
}

/** An address written by a peer or a proxy: bare, bracketed, or with a port (`1.2.3.4:80`, `[::1]:80`). */
function parseHop(text: string): IpAddress | null {
  const bare = text.trim();
  return parseIp(bare) ?? parseIp(/^\[([^\]]+)\](?::\d+)?$/.exec(bare)?.[1] ?? /^([\d.]+):\d+$/.exec(bare)?.[1] ?? '');
}

/** The proxies (CIDR ranges, IPv4 or IPv6) whose `X-Forwarded-For` the gateway believes; none by default. */
export class TrustedProxies {
  private readonly ranges: IpRange[];

  /** Throws on an entry that is not an address or a range (configuration is checked at load). */
  constructor(cidrs: readonly string[]) {
    this.ranges = cidrs.map((cidr) => {
      const range = parseRange(cidr.trim());
      if (!range) throw new Error(`not an IP address or range: ${cidr}`);
      return range;
    });
  }

  get none(): boolean {
    return this.ranges.length === 0;
  }

  trusts(address: IpAddress | null): boolean {
    if (!address) return false;
    const one = unmapped(address);
    return this.ranges.some((range) => inRange(one, range));
  }
}

/**
 * The client a request comes from, as the admin lockout counts it: the TCP peer, unless the
 * peer is a trusted proxy; then the rightmost `X-Forwarded-For` entry that is not itself a
 * trusted proxy (entries to its left were written by the client and prove nothing). Every
 * entry trusted: the leftmost; no header: the peer.
 */
export function clientAddress(req: IncomingMessage, trusted: TrustedProxies): string {
  const peerText = req.socket.remoteAddress ?? 'unknown';
  const peer = parseIp(peerText);
  const name = (address: IpAddress | null, text: string): string => (address ? canonical(address) : text.trim().slice(0, MAX_RAW_CHARS));
  if (trusted.none || !trusted.trusts(peer)) return name(peer, peerText);
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? '')).split(',').filter((hop) => hop.trim() !== '');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = parseHop(hops[i] as string);
    if (!trusted.trusts(hop)) return name(hop, hops[i] as string);
  }
  const first = hops[0];
  return first === undefined ? name(peer, peerText) : name(parseHop(first), first);
}

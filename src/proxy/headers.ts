import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { isCredentialHeader } from '../http/credential-headers.js';

/**
 * Headers that never travel from the caller to an upstream, whatever the allowlist says:
 * hop-by-hop headers (RFC 9110 §7.6.1), framing the proxy core sets itself, encodings (the
 * translators parse identity bodies), and — by `isCredentialHeader` — the caller's credentials,
 * any vendor credential or other gateway's token header, and cookies meant for us.
 */
const NEVER_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'content-encoding',
  'accept-encoding',
  'expect',
  'http2-settings',
]);

/** Which caller headers may reach an upstream: exact names, or prefixes written with a trailing `*`. */
export class ForwardedHeaders {
  private readonly names: ReadonlySet<string>;
  private readonly prefixes: readonly string[];

  constructor(allowed: readonly string[]) {
    this.names = new Set(allowed.filter((name) => !name.endsWith('*')));
    this.prefixes = allowed.filter((name) => name.endsWith('*')).map((name) => name.slice(0, -1));
  }

  allows(name: string): boolean {
    if (NEVER_FORWARDED.has(name) || name.startsWith('proxy-') || isCredentialHeader(name)) return false;
    return this.names.has(name) || this.prefixes.some((prefix) => name.startsWith(prefix));
  }
}

/**
 * The headers of one upstream attempt: the caller's that the operator's allowlist names (the
 * vendor account is the operator's: billing, project or organisation headers of a caller never
 * reach it), plus the translator's (vendor auth, content type, vendor features it vetted) and
 * the body length.
 */
export function upstreamHeaders(
  caller: IncomingHttpHeaders,
  forwarded: ForwardedHeaders,
  vendor: Readonly<Record<string, string>>,
  bodyLength: number,
): OutgoingHttpHeaders {
  // Headers the caller's own `Connection` names are hop-by-hop for that request.
  const hopByHop = caller.connection
    ? caller.connection
        .toLowerCase()
        .split(',')
        .map((token) => token.trim())
    : [];
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(caller)) {
    if (value !== undefined && forwarded.allows(name) && !hopByHop.includes(name)) out[name] = value;
  }
  for (const [name, value] of Object.entries(vendor)) out[name.toLowerCase()] = value;
  out['content-length'] = String(bodyLength);
  return out;
}

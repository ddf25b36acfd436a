import type { IncomingHttpHeaders, OutgoingHttpHeaders } from 'node:http';
import { isCredentialHeader } from '../http/credential-headers.js';

/**
 * Headers that never travel from the caller to an upstream: hop-by-hop headers (RFC 9110
 * §7.6.1), framing the proxy core sets itself, and — by `isCredentialHeader` — the caller's
 * credentials, any vendor credential or other gateway's token header, and cookies meant for us.
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
  // identity bodies only: the translators parse what comes back
  'accept-encoding',
  'expect',
  'http2-settings',
  // the caller's account headers at its own vendor; ours are the translator's
  'openai-organization',
  'openai-project',
]);

/**
 * The headers of one upstream attempt: the caller's minus everything above (and minus any
 * header the caller's `Connection` names as hop-by-hop), plus the translator's (vendor auth,
 * content type) and the body length.
 */
export function upstreamHeaders(
  caller: IncomingHttpHeaders,
  vendor: Readonly<Record<string, string>>,
  bodyLength: number,
): OutgoingHttpHeaders {
  const named = new Set(
    String(caller.connection ?? '')
      .split(',')
      .map((token) => token.trim().toLowerCase())
      .filter(Boolean),
  );
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(caller)) {
    if (value === undefined || NEVER_FORWARDED.has(name) || named.has(name) || name.startsWith('proxy-') || isCredentialHeader(name)) continue;
    out[name] = value;
  }
  for (const [name, value] of Object.entries(vendor)) out[name.toLowerCase()] = value;
  out['content-length'] = String(bodyLength);
  return out;
}

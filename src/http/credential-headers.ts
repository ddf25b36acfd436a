import { GatewayError } from './errors.js';

/**
 * Header names that carry someone's credentials: ours (`authorization`), vendors' (`x-api-key`,
 * `x-goog-api-key`, `api-key`) or another gateway's custom token header. None of them is ever
 * forwarded upstream, and the auth plugin names them when one stands in for Bearer.
 */
const CREDENTIAL_HEADER = /(^authorization$|^proxy-authorization$|token|auth|api-?key|secret|^cookie$)/i;

export const isCredentialHeader = (name: string): boolean => CREDENTIAL_HEADER.test(name);

/** How many times a header (its lower-case name) came in `rawHeaders` (name, value, name, value, …). */
function headerCount(rawHeaders: readonly string[], name: string): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]?.toLowerCase() === name) count += 1;
  return count;
}

/**
 * The one check every authenticated surface makes before it reads a credential header (API keys,
 * the admin API the dashboard calls, the metrics token): the 401 for a credential header sent
 * more than once, or undefined when it came at most once. Never picked from: Node keeps only the
 * first in `headers`, and a proxy in front may have read another one.
 */
export function repeatedCredential(rawHeaders: readonly string[], header: string): GatewayError | undefined {
  return headerCount(rawHeaders, header.toLowerCase()) > 1 ? new GatewayError(401, `Send exactly one ${header} header.`) : undefined;
}

const BEARER = /^bearer[ \t]+(.*)$/i;

/** The token of an `Authorization: Bearer …` header (surrounding spaces trimmed), or undefined for another scheme or none. */
export const bearerToken = (header: string | undefined): string | undefined => (header === undefined ? undefined : BEARER.exec(header.trim())?.[1]);

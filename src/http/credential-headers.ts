/**
 * Header names that carry someone's credentials: ours (`authorization`), vendors' (`x-api-key`,
 * `x-goog-api-key`, `api-key`) or another gateway's custom token header. None of them is ever
 * forwarded upstream, and the auth plugin names them when one stands in for Bearer.
 */
const CREDENTIAL_HEADER = /(^authorization$|^proxy-authorization$|token|auth|api-?key|secret|^cookie$)/i;

export const isCredentialHeader = (name: string): boolean => CREDENTIAL_HEADER.test(name);

/**
 * How many times a header came in `rawHeaders` (name, value, name, value, …). Node keeps only
 * the first `Authorization` in `headers`; a proxy in front may have read another one, so a
 * credential header sent twice is refused rather than picked.
 */
export function headerCount(rawHeaders: readonly string[], name: string): number {
  let count = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]?.toLowerCase() === name) count += 1;
  return count;
}

const BEARER = /^bearer[ \t]+(.*)$/i;

/** The token of an `Authorization: Bearer …` header (surrounding spaces trimmed), or undefined for another scheme or none. */
export const bearerToken = (header: string | undefined): string | undefined => (header === undefined ? undefined : BEARER.exec(header.trim())?.[1]);

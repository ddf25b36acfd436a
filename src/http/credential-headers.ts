/**
 * Header names that carry someone's credentials: ours (`authorization`), vendors' (`x-api-key`,
 * `x-goog-api-key`, `api-key`) or another gateway's custom token header. None of them is ever
 * forwarded upstream, and the auth plugin names them when one stands in for Bearer.
 */
const CREDENTIAL_HEADER = /(^authorization$|^proxy-authorization$|token|auth|api-?key|secret|^cookie$)/i;

export const isCredentialHeader = (name: string): boolean => CREDENTIAL_HEADER.test(name);

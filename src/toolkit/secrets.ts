/**
 * Keys, credentials and keeping secrets out of what the gateway writes: the caller's bearer and
 * credential headers, key material (hashing, constant-time comparison, importable prefixes), and
 * redaction for logs and stored bodies, and the gateway's seal (what a caller holds but can
 * neither read nor alter). Used by the auth plugin, by any plugin that logs or stores what a
 * caller or upstream sent, and by ingress-responses (its compaction items).
 */

export { bearerToken, isCredentialHeader, repeatedCredential } from '../http/credential-headers.js';
export { digestsEqual, hashSecret, IMPORTABLE_PREFIXES, importablePrefixOf, NATIVE_KEY_PATTERN, randomToken } from '../keys/key-material.js';
export { cutForLog, withoutSecrets } from '../http/redact.js';
export { Seal } from '../neutral/seal.js';

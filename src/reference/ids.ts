import { randomBytes } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/**
 * A fresh identifier: `prefix` plus 24 characters of [A-Za-z0-9] from a cryptographic source
 * (`chatcmpl-…`, `cmpl-…`, `call_…`). Only letters and digits, so the id is valid in every
 * vendor's id pattern (alpha's tool ids must match `^[a-zA-Z0-9_-]+$`).
 */
export function mintId(prefix: string): string {
  const bytes = randomBytes(24);
  let out = prefix;
  // 248 = 4 × 62: bytes above it are folded, a negligible bias for an identifier.
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length];
  return out;
}

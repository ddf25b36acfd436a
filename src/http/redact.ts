/**
 * Scrubs secrets out of text an upstream wrote before the gateway relays it to a caller
 * (vendor error messages): the gateway's own credential for that vendor, whole or in pieces
 * (vendors echo keys partly masked, e.g. `gamma-up********-key`), and anything shaped like a
 * secret key.
 */

export const REDACTED = '[redacted]';

/** The shortest run of the credential's characters that counts as the credential. */
const MIN_PIECE = 8;

/** Key formats of known vendors and ours; `Bearer <token>`. */
const SECRET_SHAPES: readonly RegExp[] = [/\b(?:sk|sl|rk|pk|qua)-[A-Za-z0-9_-]{8,}/g, /\bAIza[0-9A-Za-z_-]{20,}/g, /(?<=\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi];

/**
 * A token of 16+ base64 or hex characters, letters and digits mixed, within two words after
 * "key", "token", "secret", …: `key provided: 3f9a…`, `token=…`, `api_key '…'`.
 */
const AFTER_KEYWORD =
  /(\b(?:key|token|secret|password|credential|signature)s?\b[^A-Za-z0-9\n]{0,4}(?:[A-Za-z]{1,12}[^A-Za-z0-9\n]{1,4}){0,2})([A-Za-z0-9+/_.=-]{16,})/gi;

/** Every maximal run of `text` that is a piece of `credential` at least MIN_PIECE long. */
function withoutCredential(text: string, credential: string): string {
  if (credential.length < MIN_PIECE) return credential ? text.split(credential).join(REDACTED) : text;
  const pieces = new Set<string>();
  for (let at = 0; at + MIN_PIECE <= credential.length; at++) pieces.add(credential.slice(at, at + MIN_PIECE));
  let out = '';
  let kept = 0;
  for (let at = 0; at + MIN_PIECE <= text.length;) {
    if (!pieces.has(text.slice(at, at + MIN_PIECE))) {
      at += 1;
      continue;
    }
    let end = at + MIN_PIECE;
    while (end < text.length && credential.includes(text.slice(at, end + 1))) end += 1;
    out += text.slice(kept, at) + REDACTED;
    kept = at = end;
  }
  return out + text.slice(kept);
}

/** `text` with every run shaped like a key (`sl-…`, `sk-…`, `AIza…`, a bearer token) replaced by `[redacted]`. */
function withoutKeyShapes(text: string): string {
  let out = text;
  for (const shape of SECRET_SHAPES) out = out.replace(shape, REDACTED);
  return out;
}

/** `text` with the credential (and pieces of it) and secret-shaped tokens replaced by `[redacted]`. */
export function scrubSecrets(text: string, credential: string | undefined): string {
  const out = withoutKeyShapes(credential ? withoutCredential(text, credential) : text);
  return out.replace(AFTER_KEYWORD, (match: string, lead: string, token: string) => (/\d/.test(token) && /[A-Za-z]/.test(token) ? lead + REDACTED : match));
}

/**
 * `text` with each of `secrets`, whole, replaced by `[redacted]`: for what the gateway keeps of a
 * caller's conversation (stored responses), where only its own exact secrets are taken out;
 * secret-shaped text may be the caller's content, and is kept. Secrets shorter than MIN_PIECE
 * (a placeholder credential) are left alone: replacing them would rewrite ordinary text.
 */
export function withoutSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= MIN_PIECE && out.includes(secret)) out = out.split(secret).join(REDACTED);
  return out;
}

/** Longest caller-chosen text (a path) a log line or audit row keeps; a path may be ~16 KB (the header limit). */
export const MAX_LOGGED_CHARS = 200;

/**
 * `text` cut to `max` characters (marked when cut), then anything shaped like a key redacted: a
 * caller may type one into a path. Only key shapes: a path's own ids (`/keys/key_…`) are kept.
 */
export function cutForLog(text: string, max = MAX_LOGGED_CHARS): string {
  return withoutKeyShapes(text.length <= max ? text : `${text.slice(0, max)}… (truncated from ${text.length} characters)`);
}

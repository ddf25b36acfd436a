import { randomBytes } from 'node:crypto';

/**
 * Secrets for a sweep and the search for them: a secret shows up where any 8-character piece
 * of it does (the documented displays keep fewer: `sl-abcd…wxyz`, an import's last 4).
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const PIECE = 8;

/** `length` random letters and digits. */
export function randomToken(length: number): string {
  return Array.from(randomBytes(length), (byte) => ALPHABET[byte % ALPHABET.length]).join('');
}

/** Everything the gateway wrote or answered, by where it came from. */
export interface Artifact {
  label: string;
  text: string;
  /** Values this artifact is documented to show in full (the key a create or rotate answer mints). */
  shows?: readonly string[];
}

export interface Leak {
  secret: string;
  artifact: string;
  piece: string;
  context: string;
}

/** Every place an 8-character piece of a named secret appears, outside what an artifact may show. */
export function findLeaks(secrets: Readonly<Record<string, string>>, artifacts: readonly Artifact[]): Leak[] {
  const leaks: Leak[] = [];
  for (const artifact of artifacts) {
    const text = (artifact.shows ?? []).reduce((rest, shown) => rest.split(shown).join('<shown>'), artifact.text);
    for (const [name, secret] of Object.entries(secrets)) {
      for (let at = 0; at + PIECE <= secret.length; at++) {
        const piece = secret.slice(at, at + PIECE);
        const found = text.indexOf(piece);
        if (found === -1) continue;
        leaks.push({ secret: name, artifact: artifact.label, piece, context: text.slice(Math.max(0, found - 60), found + 60) });
        break;
      }
    }
  }
  return leaks;
}

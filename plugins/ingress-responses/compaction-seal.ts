import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { Store } from '../../src/plugin-api.js';

/**
 * The seal of a compaction item's `encrypted_content` (docs/formats/responses.md#compaction): the
 * summary a model wrote, encrypted and authenticated with AES-256-GCM under a key of the gateway's,
 * bound to the caller's key. The caller can neither read the summary out of it nor alter it, and
 * another key cannot expand it: whatever fails to open is refused (a 400), never sent.
 *
 * The key is derived (HKDF-SHA-256) from a random secret kept in the core store's settings, claimed
 * by the first instance to start: every instance on one database seals and opens alike, and items
 * outlive restarts. Anyone who can read the database could open items; the same database already
 * holds the stored conversations in clear, so the seal protects the summary from the caller, not
 * from the operator.
 */

const SECRET_SETTING = 'ingress-responses.compaction_secret';
/** The gateway's envelope, versioned as its reasoning states are (`gw1.`). */
const PREFIX = 'gwc1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;

export class CompactionSeal {
  private constructor(private readonly key: Buffer) {}

  /** The seal of this store's secret, minted by the first instance that asks. */
  static async load(store: Store): Promise<CompactionSeal> {
    await store.settings.claim(SECRET_SETTING, randomBytes(32).toString('base64url'));
    const secret = await store.settings.get(SECRET_SETTING);
    if (secret === undefined) throw new Error(`the store kept no ${SECRET_SETTING} after claiming it`);
    return new CompactionSeal(Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'base64url'), Buffer.alloc(0), 'gateway compaction v1', 32)));
  }

  /** `summary` sealed for the key `keyId`. */
  seal(keyId: string, summary: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(keyId));
    const sealed = Buffer.concat([cipher.update(summary, 'utf8'), cipher.final()]);
    return PREFIX + Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** The summary sealed for `keyId`, or null: not the gateway's envelope, altered, sealed under another secret or for another key. */
  open(keyId: string, content: string): string | null {
    if (!content.startsWith(PREFIX)) return null;
    const bytes = Buffer.from(content.slice(PREFIX.length), 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) return null;
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(keyId));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}

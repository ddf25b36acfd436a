import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import type { SettingsStore } from '../store/store.js';

/**
 * The gateway's seal: a text encrypted and authenticated with AES-256-GCM under a key derived
 * (HKDF-SHA-256) from a random secret kept in the store's settings, claimed by the first instance
 * to start, so every instance on one database seals and opens alike and sealed texts outlive
 * restarts. Each seal is bound to associated data (the caller's key id): what was sealed for one
 * key does not open for another. The caller can neither read nor alter what it holds; anyone who
 * reads the database can (it holds the conversations in clear anyway). Used for Responses
 * compaction items (`gwc1.`) and reasoning states (`gw2.`), each with a secret and prefix of its own.
 */

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class Seal {
  private constructor(
    private readonly key: Buffer,
    /** The envelope's prefix, e.g. `gw2.`: what tells the gateway's envelopes from other text. */
    readonly prefix: string,
  ) {}

  /** The seal under the secret of setting `setting` (minted by the first instance that asks), with `info` separating the derived key by use. */
  static async load(settings: SettingsStore, setting: string, info: string, prefix: string): Promise<Seal> {
    await settings.claim(setting, randomBytes(32).toString('base64url'));
    const secret = await settings.get(setting);
    if (secret === undefined) throw new Error(`the store kept no ${setting} after claiming it`);
    return new Seal(Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'base64url'), Buffer.alloc(0), info, 32)), prefix);
  }

  /** `text` sealed for `boundTo`. */
  seal(boundTo: string, text: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
    return this.prefix + Buffer.concat([iv, sealed, cipher.getAuthTag()]).toString('base64url');
  }

  /** Whether `text` is this seal's envelope (opened or not). */
  holds(text: string): boolean {
    return text.startsWith(this.prefix);
  }

  /** The text sealed for `boundTo`, or null: not this envelope, altered, sealed under another secret or for another binding. */
  open(boundTo: string, envelope: string): string | null {
    if (!this.holds(envelope)) return null;
    const bytes = Buffer.from(envelope.slice(this.prefix.length), 'base64url');
    if (bytes.length < IV_BYTES + TAG_BYTES) return null;
    const decipher = createDecipheriv('aes-256-gcm', this.key, bytes.subarray(0, IV_BYTES));
    decipher.setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    try {
      return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  }
}

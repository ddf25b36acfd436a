import { hash, randomInt, timingSafeEqual } from 'node:crypto';

/**
 * Everything about key values themselves: minting, hashing, truncating and recognising
 * prefixes. Raw values never leave this module except in the create/rotate responses.
 */

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
export const NATIVE_PREFIX = 'sl-';
export const NATIVE_KEY_PATTERN = /^sl-[A-Za-z0-9]{32}$/;

/** Prefixes of keys that can be imported in the dashboard but never authenticate at /v1. */
export const IMPORTABLE_PREFIXES = {
  'qua-': 'another gateway',
  'sk-': 'an upstream model vendor',
  'or-': 'a routing aggregator',
} as const;
export type ImportablePrefix = keyof typeof IMPORTABLE_PREFIXES;

/** `length` characters from [A-Za-z0-9], drawn uniformly from a cryptographic source. */
export function randomToken(length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET.charAt(randomInt(ALPHABET.length));
  return out;
}

export const generateNativeKey = (): string => `${NATIVE_PREFIX}${randomToken(32)}`;

/** SHA-256 of the presented value: what the store keeps and looks up. One call, no Hash object: it runs for every request's key. */
export const hashSecret = (value: string): Buffer => hash('sha256', value, 'buffer');

/** Constant-time comparison of two digests of equal length. */
export function digestsEqual(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** `sl-abcd…wxyz`: enough to tell keys apart, useless to an attacker. */
export function truncateKey(value: string): string {
  const dash = value.indexOf('-');
  const prefix = value.slice(0, dash + 1);
  const body = value.slice(dash + 1);
  return `${prefix}${body.slice(0, 4)}…${body.slice(-4)}`;
}

export function importablePrefixOf(token: string): ImportablePrefix | undefined {
  for (const prefix of Object.keys(IMPORTABLE_PREFIXES) as ImportablePrefix[]) {
    if (token.startsWith(prefix)) return prefix;
  }
  return undefined;
}

import { hashSecret, IMPORTABLE_PREFIXES, importablePrefixOf, type ImportablePrefix } from '../keys/key-material.js';

/** The three kinds of importable keys, by prefix (docs/migration.md#importing-old-keys). */
export const KIND_NAMES = { 'qua-': 'gateway', 'sk-': 'vendor', 'or-': 'aggregator' } as const satisfies Record<ImportablePrefix, string>;
export type KindName = (typeof KIND_NAMES)[ImportablePrefix];

export interface RecognisedKey {
  prefix: ImportablePrefix;
  kind: KindName;
  /** "another gateway", "an upstream model vendor", "a routing aggregator". */
  description: string;
  /** Hex SHA-256 of the value: what is stored instead of it. */
  fingerprint: string;
  last4: string;
}

/** Names a pasted key's kind, or undefined if it is not an importable key. */
export function recogniseKey(value: string): RecognisedKey | undefined {
  const token = value.trim();
  const prefix = importablePrefixOf(token);
  if (!prefix || token.length < prefix.length + 8 || /\s/.test(token)) return undefined;
  return {
    prefix,
    kind: KIND_NAMES[prefix],
    description: IMPORTABLE_PREFIXES[prefix],
    fingerprint: hashSecret(token).toString('hex'),
    last4: token.slice(-4),
  };
}

import type { KeptAnswer } from '../../../src/plugin-api.js';

/**
 * The response cache's entries (plugins/response-cache), in the plugin's own state so that every
 * instance on one store shares them. An entry is one answer of one key, found by the hash of its
 * request (../match.ts); a key's entries are bounded in bytes, its oldest evicted first.
 */
export interface ResponseCacheStore {
  /** The answer kept for `hash` under `keyId`, unless it expired at `now`. */
  get(keyId: string, hash: string, now: number): Promise<KeptAnswer | null>;
  /**
   * Keeps `answer` until `expiresAt` (replacing an entry of the same hash), then evicts the key's
   * expired entries and, oldest first, those beyond `maxBytesPerKey`.
   */
  put(entry: CacheEntry, maxBytesPerKey: number): Promise<void>;
  /** Drops every entry expired at `now`; returns how many. */
  prune(now: number): Promise<number>;
}

export interface CacheEntry {
  keyId: string;
  hash: string;
  answer: KeptAnswer;
  storedAt: number;
  expiresAt: number;
}

/** An answer as its row keeps it: its JSON, whose UTF-8 length is what the key's bound counts. */
export const answerText = (answer: KeptAnswer): string => JSON.stringify({ stream: answer.stream, pieces: answer.pieces, usage: answer.usage });

export const answerOf = (text: string): KeptAnswer => JSON.parse(text) as KeptAnswer;

/**
 * The key's live rows beyond its byte bound once the new entry (`bytes`) is in: newest first, a
 * row goes when the running total with it passes the bound. Portable SQL (SQLite ≥ 3.25 and
 * PostgreSQL have window functions); the placeholders are the caller's.
 */
export const beyondBound = (key: string, hash: string, bytes: string, max: string, now: string): string =>
  `SELECT hash FROM (
     SELECT hash, SUM(bytes) OVER (ORDER BY stored_at DESC, hash DESC ROWS UNBOUNDED PRECEDING) AS running
       FROM response_cache WHERE key_id = ${key} AND hash <> ${hash} AND expires_at > ${now}) AS r
   WHERE running + ${bytes} > ${max}`;

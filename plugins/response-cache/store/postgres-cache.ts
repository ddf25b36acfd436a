import type { Pool } from 'pg';
import type { KeptAnswer, PostgresHandle } from '../../../src/plugin-api.js';
import { answerOf, answerText, beyondBound, type CacheEntry, type ResponseCacheStore } from './cache-store.js';

const GET = {
  name: 'response_cache_get',
  text: 'SELECT answer FROM response_cache WHERE key_id = $1 AND hash = $2 AND expires_at > $3',
};

/**
 * One statement: the key's expired entries and those the new one pushes beyond the bound go
 * (each statement sees the table as it was, so the new entry's bytes are counted as `$4`), and
 * the entry is written.
 */
const PUT = {
  name: 'response_cache_put',
  text: `WITH expired AS (
      DELETE FROM response_cache WHERE key_id = $1 AND hash <> $2 AND expires_at <= $5
    ), evicted AS (
      DELETE FROM response_cache WHERE key_id = $1 AND hash IN (${beyondBound('$1', '$2', '$4', '$7', '$5')})
    )
    INSERT INTO response_cache (key_id, hash, answer, bytes, stored_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)
    ON CONFLICT (key_id, hash) DO UPDATE SET answer = EXCLUDED.answer, bytes = EXCLUDED.bytes,
      stored_at = EXCLUDED.stored_at, expires_at = EXCLUDED.expires_at`,
};

/** The response cache in PostgreSQL (cache-store.ts; migrations.ts): a put is one statement. */
export class PgResponseCache implements ResponseCacheStore {
  private readonly pool: Pool;

  constructor({ pool }: PostgresHandle) {
    this.pool = pool;
  }

  async get(keyId: string, hash: string, now: number): Promise<KeptAnswer | null> {
    const row = (await this.pool.query<{ answer: string }>({ ...GET, values: [keyId, hash, now] })).rows[0];
    return row ? answerOf(row.answer) : null;
  }

  async put({ keyId, hash, answer, storedAt, expiresAt }: CacheEntry, maxBytesPerKey: number): Promise<void> {
    const text = answerText(answer);
    await this.pool.query({ ...PUT, values: [keyId, hash, text, Buffer.byteLength(text), storedAt, expiresAt, maxBytesPerKey] });
  }

  async prune(now: number): Promise<number> {
    return (await this.pool.query('DELETE FROM response_cache WHERE expires_at <= $1', [now])).rowCount ?? 0;
  }
}

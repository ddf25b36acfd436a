import type { KeptAnswer, SqliteHandle } from '../../../src/plugin-api.js';
import { answerOf, answerText, beyondBound, type CacheEntry, type ResponseCacheStore } from './cache-store.js';

/** The response cache in SQLite (cache-store.ts; migrations.ts): a put joins the group commit of its turn. */
export class SqliteResponseCache implements ResponseCacheStore {
  private readonly select;
  private readonly upsert;
  private readonly dropExpiredOfKey;
  private readonly overBound;
  private readonly dropOne;
  private readonly pruneExpired;
  private readonly writes: SqliteHandle['writes'];

  constructor({ db, writes, chunkedDelete }: SqliteHandle) {
    this.writes = writes;
    this.select = db.prepare('SELECT answer FROM response_cache WHERE key_id = ? AND hash = ? AND expires_at > ?').pluck();
    this.upsert = db.prepare(`INSERT INTO response_cache (key_id, hash, answer, bytes, stored_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (key_id, hash) DO UPDATE SET answer = excluded.answer, bytes = excluded.bytes,
        stored_at = excluded.stored_at, expires_at = excluded.expires_at`);
    this.dropExpiredOfKey = db.prepare('DELETE FROM response_cache WHERE key_id = ? AND expires_at <= ?');
    this.overBound = db.prepare(beyondBound('@key', '@hash', '@bytes', '@max', '@now')).pluck();
    this.dropOne = db.prepare('DELETE FROM response_cache WHERE key_id = ? AND hash = ?');
    this.pruneExpired = chunkedDelete('response_cache', 'key_id, hash', 'expires_at <= ?');
  }

  async get(keyId: string, hash: string, now: number): Promise<KeptAnswer | null> {
    const text = this.select.get(keyId, hash, now) as string | undefined;
    return text === undefined ? null : answerOf(text);
  }

  put({ keyId, hash, answer, storedAt, expiresAt }: CacheEntry, maxBytesPerKey: number): Promise<void> {
    const text = answerText(answer);
    const bytes = Buffer.byteLength(text);
    return this.writes.write(() => {
      this.dropExpiredOfKey.run(keyId, storedAt);
      const evicted = this.overBound.all({ key: keyId, hash, bytes, max: maxBytesPerKey, now: storedAt }) as string[];
      for (const old of evicted) this.dropOne.run(keyId, old);
      this.upsert.run(keyId, hash, text, bytes, storedAt, expiresAt);
    });
  }

  prune(now: number): Promise<number> {
    return this.pruneExpired(now);
  }
}

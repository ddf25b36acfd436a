import type { SqliteHandle } from '../../../src/plugin-api.js';
import { lastPerCall, type KeptSignature, type SignatureStore, type ThoughtSignature } from './signatures.js';

/** Thought signatures in SQLite (signatures.ts; migrations.ts); writes join the group commit of the turn. */
export class SqliteSignatureStore implements SignatureStore {
  private readonly upsert;
  private readonly select;
  private readonly pruneExpired;
  private readonly writes: SqliteHandle['writes'];

  constructor({ db, writes, chunkedDelete }: SqliteHandle) {
    this.writes = writes;
    this.upsert = db.prepare(`INSERT INTO thought_signatures (key_id, call_id, signature, deployment, expires_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (key_id, call_id) DO UPDATE SET signature = excluded.signature, deployment = excluded.deployment, expires_at = excluded.expires_at`);
    this.select = db.prepare(`SELECT call_id, signature, deployment FROM thought_signatures
      WHERE key_id = ? AND call_id IN (SELECT value FROM json_each(?)) AND expires_at > ?`);
    this.pruneExpired = chunkedDelete('thought_signatures', 'key_id, call_id', 'expires_at <= ?');
  }

  put(signatures: readonly ThoughtSignature[], expiresAt: number): Promise<void> {
    return this.writes.write(() => {
      for (const one of lastPerCall(signatures)) this.upsert.run(one.keyId, one.callId, one.signature, one.deployment, expiresAt);
    });
  }

  async get(keyId: string, callIds: readonly string[], now: number): Promise<Map<string, KeptSignature>> {
    const rows = this.select.all(keyId, JSON.stringify(callIds), now) as Array<KeptSignature & { call_id: string }>;
    return new Map(rows.map(({ call_id, ...kept }) => [call_id, kept]));
  }

  prune(now: number): Promise<number> {
    return this.pruneExpired(now);
  }
}

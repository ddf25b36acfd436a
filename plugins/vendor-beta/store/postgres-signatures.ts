import type { Pool } from 'pg';
import type { PostgresHandle } from '../../../src/plugin-api.js';
import { lastPerCall, type SignatureStore, type ThoughtSignature } from './signatures.js';

const PUT = {
  name: 'signatures_put',
  text: `INSERT INTO thought_signatures (key_id, call_id, signature, expires_at)
    SELECT s.key_id, s.call_id, s.signature, $4::bigint FROM unnest($1::text[], $2::text[], $3::text[]) AS s(key_id, call_id, signature)
    ON CONFLICT (key_id, call_id) DO UPDATE SET signature = EXCLUDED.signature, expires_at = EXCLUDED.expires_at`,
};
const GET = {
  name: 'signatures_get',
  text: 'SELECT call_id, signature FROM thought_signatures WHERE key_id = $1 AND call_id = ANY($2::text[]) AND expires_at > $3',
};

/** Thought signatures in PostgreSQL (signatures.ts; migrations.ts): a batch is one statement. */
export class PgSignatureStore implements SignatureStore {
  private readonly pool: Pool;

  constructor({ pool }: PostgresHandle) {
    this.pool = pool;
  }

  async put(signatures: readonly ThoughtSignature[], expiresAt: number): Promise<void> {
    const batch = lastPerCall(signatures);
    if (batch.length === 0) return;
    const values = [batch.map((s) => s.keyId), batch.map((s) => s.callId), batch.map((s) => s.signature), expiresAt];
    await this.pool.query({ ...PUT, values });
  }

  async get(keyId: string, callIds: readonly string[], now: number): Promise<Map<string, string>> {
    const rows = (await this.pool.query<{ call_id: string; signature: string }>({ ...GET, values: [keyId, callIds, now] })).rows;
    return new Map(rows.map((row) => [row.call_id, row.signature]));
  }

  async prune(now: number): Promise<number> {
    return (await this.pool.query('DELETE FROM thought_signatures WHERE expires_at <= $1', [now])).rowCount ?? 0;
  }
}

import type { Pool } from 'pg';
import type { PostgresHandle } from '../../../src/plugin-api.js';
import { lastPerCall, type KeptSignature, type SignatureStore, type ThoughtSignature } from './signatures.js';

const PUT = {
  name: 'signatures_put',
  text: `INSERT INTO thought_signatures (key_id, call_id, signature, deployment, expires_at)
    SELECT s.key_id, s.call_id, s.signature, s.deployment, $5::bigint
      FROM unnest($1::text[], $2::text[], $3::text[], $4::text[]) AS s(key_id, call_id, signature, deployment)
    ON CONFLICT (key_id, call_id) DO UPDATE SET signature = EXCLUDED.signature, deployment = EXCLUDED.deployment, expires_at = EXCLUDED.expires_at`,
};
const GET = {
  name: 'signatures_get',
  text: 'SELECT call_id, signature, deployment FROM thought_signatures WHERE key_id = $1 AND call_id = ANY($2::text[]) AND expires_at > $3',
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
    const values = [batch.map((s) => s.keyId), batch.map((s) => s.callId), batch.map((s) => s.signature), batch.map((s) => s.deployment), expiresAt];
    await this.pool.query({ ...PUT, values });
  }

  async get(keyId: string, callIds: readonly string[], now: number): Promise<Map<string, KeptSignature>> {
    const rows = (await this.pool.query<KeptSignature & { call_id: string }>({ ...GET, values: [keyId, callIds, now] })).rows;
    return new Map(rows.map(({ call_id, ...kept }) => [call_id, kept]));
  }

  async prune(now: number): Promise<number> {
    return (await this.pool.query('DELETE FROM thought_signatures WHERE expires_at <= $1', [now])).rowCount ?? 0;
  }
}

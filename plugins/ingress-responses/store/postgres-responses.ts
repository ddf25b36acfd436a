import type { Pool } from 'pg';
import type { BatchWriter, PostgresHandle } from '../../../src/plugin-api.js';
import { responseSql, responseThreadSql, retrieveSql, toStoredResponse, wholeThread } from './responses.js';
import type { ResponseRow, ResponseStore, RetrievedResponse, SavedResponse, StoredResponse } from './responses.js';

const THREAD = responseThreadSql('$1', '$2', '$3');
const ONE = { name: 'responses_one', text: responseSql('$1', '$2', '$3') };
const RETRIEVE = { name: 'responses_retrieve', text: retrieveSql('$1', '$2', '$3') };

const SAVE_ONE = {
  name: 'responses_save',
  text: 'INSERT INTO responses (id, key_id, previous_id, created_at, items, resource, deployment) VALUES ($1, $2, $3, $4, $5, $6, $7)',
};
const SAVE_MANY = {
  name: 'responses_save_many',
  text: `INSERT INTO responses (id, key_id, previous_id, created_at, items, resource, deployment)
    SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::bigint[], $5::text[], $6::text[], $7::text[])`,
};

/** The newest-first running sum of a key's sizes ($1 key): read from the index by key, which carries them (migration 21). */
export const TRIM_SIZES_SQL = `SELECT id, SUM(bytes) OVER (ORDER BY created_at DESC, id DESC ROWS UNBOUNDED PRECEDING) AS newer
  FROM responses WHERE key_id = $1`;

/** The key's responses beyond its newest `budget` bytes of items ($1 key, $2 budget). */
const TRIM = {
  name: 'responses_trim',
  text: `DELETE FROM responses WHERE key_id = $1 AND id IN (SELECT id FROM (${TRIM_SIZES_SQL}) ranked WHERE newer > $2)`,
};

const valuesOf = (r: SavedResponse): unknown[] => [r.id, r.keyId, r.previousId, r.createdAt, r.items, r.resource ?? null, r.deployment ?? null];

/** The responses of one event-loop turn in one statement (PostgresHandle.tickBatch), like the ledger rows they come with. */
function saveWriter(pool: Pool): BatchWriter<SavedResponse, void> {
  return {
    async many(batch) {
      const columns: unknown[][] = [[], [], [], [], [], [], []];
      for (const response of batch) valuesOf(response).forEach((value, i) => (columns[i] as unknown[]).push(value));
      await pool.query({ ...SAVE_MANY, values: columns });
      return batch.map(() => undefined);
    },
    async one(response) {
      await pool.query({ ...SAVE_ONE, values: valuesOf(response) });
    },
  };
}

export class PgResponseStore implements ResponseStore {
  private readonly pool: Pool;
  private readonly saves: (response: SavedResponse) => Promise<void>;

  constructor({ pool, tickBatch }: PostgresHandle) {
    this.pool = pool;
    this.saves = tickBatch(saveWriter(pool));
  }

  save(response: SavedResponse): Promise<void> {
    return this.saves(response);
  }

  async thread(keyId: string, id: string, since: number): Promise<StoredResponse[]> {
    return wholeThread((await this.pool.query<ResponseRow>(THREAD, [id, keyId, since])).rows);
  }

  async one(keyId: string, id: string, since: number): Promise<StoredResponse | null> {
    const row = (await this.pool.query<ResponseRow>({ ...ONE, values: [id, keyId, since] })).rows[0];
    return row ? toStoredResponse(row) : null;
  }

  async retrieve(keyId: string, id: string, since: number): Promise<RetrievedResponse | null> {
    return (await this.pool.query<RetrievedResponse>({ ...RETRIEVE, values: [id, keyId, since] })).rows[0] ?? null;
  }

  async remove(keyId: string, id: string): Promise<boolean> {
    return ((await this.pool.query('DELETE FROM responses WHERE id = $1 AND key_id = $2', [id, keyId])).rowCount ?? 0) > 0;
  }

  async prune(before: number): Promise<number> {
    return (await this.pool.query('DELETE FROM responses WHERE created_at < $1', [before])).rowCount ?? 0;
  }

  async trim(keyId: string, budget: number): Promise<number> {
    return (await this.pool.query({ ...TRIM, values: [keyId, budget] })).rowCount ?? 0;
  }
}

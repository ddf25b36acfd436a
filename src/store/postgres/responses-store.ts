import type { Pool } from 'pg';
import { responseThreadSql, wholeThread, type ResponseRow } from '../rows.js';
import type { ResponseStore, StoredResponse } from '../store.js';

const THREAD = responseThreadSql('$1', '$2', '$3');

export class PgResponseStore implements ResponseStore {
  constructor(private readonly pool: Pool) {}

  async save(response: StoredResponse): Promise<void> {
    await this.pool.query('INSERT INTO responses (id, key_id, previous_id, created_at, items) VALUES ($1, $2, $3, $4, $5)', [
      response.id,
      response.keyId,
      response.previousId,
      response.createdAt,
      response.items,
    ]);
  }

  async thread(keyId: string, id: string, since: number): Promise<StoredResponse[]> {
    return wholeThread((await this.pool.query<ResponseRow>(THREAD, [id, keyId, since])).rows);
  }

  async prune(before: number): Promise<number> {
    return (await this.pool.query('DELETE FROM responses WHERE created_at < $1', [before])).rowCount ?? 0;
  }
}

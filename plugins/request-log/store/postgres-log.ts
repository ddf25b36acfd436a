import type { Pool } from 'pg';
import type { PostgresHandle } from '../../../src/plugin-api.js';
import { COLUMNS, idAtTime, pageQuery, recordOf, valuesOf, type RecordRow, type RequestLogStore, type RequestQuery, type RequestRecord } from './log-store.js';

/** Each column's array type: a batch is one INSERT of `unnest` over one array per column. */
const ARRAY_TYPES: Record<(typeof COLUMNS)[number], string> = {
  id: 'text',
  at: 'bigint',
  key_id: 'text',
  model: 'text',
  endpoint: 'text',
  stream: 'boolean',
  deployment: 'text',
  status: 'integer',
  outcome: 'text',
  latency_ms: 'double precision',
  ttft_ms: 'double precision',
  input_tokens: 'bigint',
  output_tokens: 'bigint',
  cache_read_tokens: 'bigint',
  cache_write_tokens: 'bigint',
  reasoning_tokens: 'bigint',
  charged_nano: 'bigint',
  upstream_nano: 'bigint',
  attempts: 'integer',
  cache_hit: 'boolean',
  trace_id: 'text',
};

const INSERT = {
  name: 'request_log_append',
  text: `INSERT INTO request_log (${COLUMNS.join(', ')})
    SELECT * FROM unnest(${COLUMNS.map((column, i) => `$${i + 1}::${ARRAY_TYPES[column]}[]`).join(', ')})
    ON CONFLICT (id) DO NOTHING`,
};
const ONE = { name: 'request_log_one', text: `SELECT ${COLUMNS.join(', ')} FROM request_log WHERE id = $1` };
const NTH_NEWEST = { name: 'request_log_nth_newest', text: 'SELECT id FROM request_log ORDER BY id DESC LIMIT 1 OFFSET $1' };
/** Rows one pruning statement deletes at most, so no statement holds its locks for long. */
const PRUNE_CHUNK_ROWS = 5000;

/** The request log in PostgreSQL (log-store.ts; migrations.ts): a batch is one statement. */
export class PgRequestLog implements RequestLogStore {
  private readonly pool: Pool;

  constructor({ pool }: PostgresHandle) {
    this.pool = pool;
  }

  async append(records: readonly RequestRecord[]): Promise<void> {
    if (records.length === 0) return;
    const columns: unknown[][] = COLUMNS.map(() => []);
    for (const record of records) valuesOf(record, Boolean).forEach((value, i) => columns[i]?.push(value));
    await this.pool.query({ ...INSERT, values: columns });
  }

  async list(query: RequestQuery): Promise<RequestRecord[]> {
    const { sql, values } = pageQuery(query, (n) => `$${n}`);
    return (await this.pool.query<RecordRow>(sql, values)).rows.map(recordOf);
  }

  async get(id: string): Promise<RequestRecord | null> {
    const row = (await this.pool.query<RecordRow>({ ...ONE, values: [id] })).rows[0];
    return row ? recordOf(row) : null;
  }

  async prune(olderThan: number, keepAtMost: number): Promise<number> {
    let total = await this.dropWhere('id < $1', idAtTime(olderThan));
    const beyond = (await this.pool.query<{ id: string }>({ ...NTH_NEWEST, values: [keepAtMost] })).rows[0];
    if (beyond) total += await this.dropWhere('id <= $1', beyond.id);
    return total;
  }

  private async dropWhere(condition: string, bound: string): Promise<number> {
    let total = 0;
    for (;;) {
      const sql = `DELETE FROM request_log WHERE id IN (SELECT id FROM request_log WHERE ${condition} LIMIT ${PRUNE_CHUNK_ROWS})`;
      const deleted = (await this.pool.query(sql, [bound])).rowCount ?? 0;
      total += deleted;
      if (deleted < PRUNE_CHUNK_ROWS) return total;
    }
  }
}

import type { Statement } from 'better-sqlite3';
import type { SqliteHandle } from '../../../src/plugin-api.js';
import { COLUMNS, idAtTime, pageQuery, recordOf, valuesOf, type RecordRow, type RequestLogStore, type RequestQuery, type RequestRecord } from './log-store.js';

/** The request log in SQLite (log-store.ts; migrations.ts): a batch of records joins the group commit of its turn as one transaction. */
export class SqliteRequestLog implements RequestLogStore {
  private readonly db: SqliteHandle['db'];
  private readonly writes: SqliteHandle['writes'];
  private readonly insert: Statement;
  private readonly one: Statement<[string]>;
  private readonly nthNewest: Statement<[number]>;
  private readonly dropBefore: (...params: unknown[]) => Promise<number>;
  private readonly dropThrough: (...params: unknown[]) => Promise<number>;
  /** A page's statement per combination of filters (at most 2^8), prepared once. */
  private readonly pages = new Map<string, Statement>();

  constructor({ db, writes, chunkedDelete }: SqliteHandle) {
    this.db = db;
    this.writes = writes;
    this.insert = db.prepare(`INSERT OR IGNORE INTO request_log (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);
    this.one = db.prepare(`SELECT ${COLUMNS.join(', ')} FROM request_log WHERE id = ?`);
    this.nthNewest = db.prepare('SELECT id FROM request_log ORDER BY id DESC LIMIT 1 OFFSET ?').pluck();
    this.dropBefore = chunkedDelete('request_log', 'id', 'id < ?');
    this.dropThrough = chunkedDelete('request_log', 'id', 'id <= ?');
  }

  append(records: readonly RequestRecord[]): Promise<void> {
    return this.writes.write(() => {
      for (const record of records) this.insert.run(...valuesOf(record, Number));
    });
  }

  list(query: RequestQuery): Promise<RequestRecord[]> {
    const { sql, values } = pageQuery(query, () => '?');
    let statement = this.pages.get(sql);
    if (!statement) this.pages.set(sql, (statement = this.db.prepare(sql)));
    return Promise.resolve((statement.all(...values) as RecordRow[]).map(recordOf));
  }

  get(id: string): Promise<RequestRecord | null> {
    const row = this.one.get(id) as RecordRow | undefined;
    return Promise.resolve(row ? recordOf(row) : null);
  }

  async prune(olderThan: number, keepAtMost: number): Promise<number> {
    const byAge = await this.dropBefore(idAtTime(olderThan));
    // The newest row beyond the bound and every older one go.
    const beyond = this.nthNewest.get(keepAtMost) as string | undefined;
    return byAge + (beyond === undefined ? 0 : await this.dropThrough(beyond));
  }
}

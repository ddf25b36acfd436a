import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Statement } from 'better-sqlite3';
import type { SqliteHandle } from '../../../src/plugin-api.js';
import {
  COLUMNS,
  ID_PREFIX,
  idAtTime,
  pageQuery,
  recordOf,
  valuesOf,
  type RecordRow,
  type RequestLogStore,
  type RequestQuery,
  type RequestRecord,
} from './log-store.js';

/** Greater than every record id (`req_` + hex digits, whose highest is `f`): where a walk down from the newest starts. */
const ABOVE_EVERY_ID = `${ID_PREFIX}g`;

/** The request log in SQLite (log-store.ts; migrations.ts): a batch of records joins the group commit of its turn as one transaction. */
export class SqliteRequestLog implements RequestLogStore {
  private readonly db: SqliteHandle['db'];
  private readonly writes: SqliteHandle['writes'];
  private readonly insert: Statement;
  private readonly one: Statement<[string]>;
  private readonly newestBelow: Statement<[string, number]>;
  private readonly pruneChunkRows: number;
  private readonly dropBefore: (...params: unknown[]) => Promise<number>;
  private readonly dropThrough: (...params: unknown[]) => Promise<number>;
  /** A page's statement per combination of filters (at most 2^8), prepared once. */
  private readonly pages = new Map<string, Statement>();

  constructor({ db, writes, chunkedDelete, pruneChunkRows }: SqliteHandle) {
    this.pruneChunkRows = pruneChunkRows;
    this.db = db;
    this.writes = writes;
    this.insert = db.prepare(`INSERT OR IGNORE INTO request_log (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map(() => '?').join(', ')})`);
    this.one = db.prepare(`SELECT ${COLUMNS.join(', ')} FROM request_log WHERE id = ?`);
    this.newestBelow = db.prepare('SELECT id FROM request_log WHERE id < ? ORDER BY id DESC LIMIT 1 OFFSET ?').pluck();
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
    const beyond = await this.newestBeyond(keepAtMost);
    return byAge + (beyond === undefined ? 0 : await this.dropThrough(beyond));
  }

  /**
   * The id of the newest row after the `count` newest, walked down the index `pruneChunkRows` rows
   * a statement with a turn of the event loop between them: one OFFSET of a million rows would
   * hold the event loop for the whole walk.
   */
  private async newestBeyond(count: number): Promise<string | undefined> {
    let below = ABOVE_EVERY_ID;
    for (let left = count; left > 0; left -= this.pruneChunkRows) {
      const id = this.newestBelow.get(below, Math.min(left, this.pruneChunkRows) - 1) as string | undefined;
      if (id === undefined) return undefined;
      below = id;
      await nextTurn();
    }
    return this.newestBelow.get(below, 0) as string | undefined;
  }
}

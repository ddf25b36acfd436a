import { setImmediate as nextTurn } from 'node:timers/promises';
import type { SqliteHandle } from '../../../src/plugin-api.js';
import { responseSql, responseThreadSql, retrieveSql, toStoredResponse, wholeThread } from './responses.js';
import type { ResponseRow, ResponseStore, RetrievedResponse, SavedResponse, StoredResponse } from './responses.js';

interface SizedRow {
  createdAt: number;
  id: string;
  bytes: number;
}

interface ChunkSize {
  bytes: number;
  rows: number;
}

/**
 * Responses per step of a trim's walk, newest first: their sizes are summed in SQL from the index
 * by key, which carries them (migration 21, ./migrations.ts), about 0.1 µs a row, so a step holds the event loop
 * for about a quarter of a millisecond.
 */
export const TRIM_CHUNK_ROWS = 2048;

/** A key's responses newest first from before a place (key, created_at, id), each with its size. */
const NEWEST_FIRST = `SELECT created_at AS createdAt, id, octet_length(items) AS bytes FROM responses
  WHERE key_id = ? AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC`;

/** The sum of a chunk's sizes and its row count: read from the index alone (see the layout test). */
export const TRIM_CHUNK_SQL = `SELECT COALESCE(SUM(bytes), 0) AS bytes, COUNT(*) AS rows FROM (${NEWEST_FIRST} LIMIT ${TRIM_CHUNK_ROWS})`;

interface AgedRow {
  rowid: number;
  createdAt: number;
}

export class SqliteResponseStore implements ResponseStore {
  private readonly insert;
  private readonly selectThread;
  private readonly selectOne;
  private readonly selectRetrieved;
  private readonly removeOne;
  private readonly oldestFirst;
  private readonly removeThrough;
  private readonly chunkSize;
  private readonly chunkRows;
  private readonly chunkEnd;
  private readonly removeUpTo;
  private readonly writes: SqliteHandle['writes'];
  private readonly pruneChunkRows: number;

  constructor({ db, writes, chunkedDelete, pruneChunkRows }: SqliteHandle) {
    this.writes = writes;
    this.pruneChunkRows = pruneChunkRows;
    this.insert = db.prepare('INSERT INTO responses (id, key_id, previous_id, created_at, items, resource, deployment) VALUES (?, ?, ?, ?, ?, ?, ?)');
    this.selectThread = db.prepare(responseThreadSql('@id', '@key', '@since'));
    this.selectOne = db.prepare(responseSql('@id', '@key', '@since'));
    this.selectRetrieved = db.prepare(retrieveSql('@id', '@key', '@since'));
    this.removeOne = db.prepare('DELETE FROM responses WHERE id = ? AND key_id = ?');
    // Rows are in the order they were stored (there is no index by time: migration 18).
    this.oldestFirst = db.prepare(`SELECT rowid, created_at AS createdAt FROM responses WHERE rowid > ? ORDER BY rowid LIMIT ${pruneChunkRows}`);
    this.removeThrough = db.prepare('DELETE FROM responses WHERE rowid > ? AND rowid <= ?');
    this.chunkSize = db.prepare(TRIM_CHUNK_SQL);
    this.chunkRows = db.prepare(`${NEWEST_FIRST} LIMIT ${TRIM_CHUNK_ROWS}`);
    this.chunkEnd = db.prepare(`${NEWEST_FIRST} LIMIT 1 OFFSET ${TRIM_CHUNK_ROWS - 1}`);
    this.removeUpTo = chunkedDelete('responses', 'rowid', 'key_id = ? AND (created_at, id) <= (?, ?)');
  }

  /** Joins the turn's group commit (with the call's ledger row): one transaction instead of one more each. */
  save(response: SavedResponse): Promise<void> {
    return this.writes.writeStatement(
      () =>
        void this.insert.run(
          response.id,
          response.keyId,
          response.previousId,
          response.createdAt,
          response.items,
          response.resource ?? null,
          response.deployment ?? null,
        ),
    );
  }

  async thread(keyId: string, id: string, since: number): Promise<StoredResponse[]> {
    return wholeThread(this.selectThread.all({ id, key: keyId, since }) as ResponseRow[]);
  }

  async one(keyId: string, id: string, since: number): Promise<StoredResponse | null> {
    const row = this.selectOne.get({ id, key: keyId, since }) as ResponseRow | undefined;
    return row ? toStoredResponse(row) : null;
  }

  async retrieve(keyId: string, id: string, since: number): Promise<RetrievedResponse | null> {
    return (this.selectRetrieved.get({ id, key: keyId, since }) as RetrievedResponse | undefined) ?? null;
  }

  async remove(keyId: string, id: string): Promise<boolean> {
    return this.removeOne.run(id, keyId).changes > 0;
  }

  /**
   * Deletes from the oldest row on, a chunk per statement (the event loop turns between them),
   * up to the first row created at or after `before`. A call stored long after it began (a slow
   * stream) may sit behind newer rows: it goes at a later prune, and `thread` never reads a row
   * older than its window.
   */
  async prune(before: number): Promise<number> {
    let total = 0;
    let after = 0;
    for (;;) {
      const rows = this.oldestFirst.all(after) as AgedRow[];
      const fresh = rows.findIndex((row) => row.createdAt >= before);
      const last = rows[fresh === -1 ? rows.length - 1 : fresh - 1];
      if (last) total += this.removeThrough.run(after, last.rowid).changes;
      if (fresh !== -1 || rows.length < this.pruneChunkRows || !last) return total;
      after = last.rowid;
      await nextTurn();
    }
  }

  /**
   * Walks the key's responses newest first, a chunk's summed sizes per statement (the event loop
   * turns between them), to the chunk that goes over the budget; in it, to the first response
   * over. It and every older one go in chunked deletes. Only that chunk's rows come to JS.
   */
  async trim(keyId: string, budget: number): Promise<number> {
    let kept = 0;
    let before: [number, string] = [Number.MAX_SAFE_INTEGER, ''];
    for (;;) {
      const chunk = this.chunkSize.get(keyId, ...before) as ChunkSize;
      if (kept + chunk.bytes > budget) {
        for (const row of this.chunkRows.all(keyId, ...before) as SizedRow[]) {
          kept += row.bytes;
          if (kept > budget) return this.removeUpTo(keyId, row.createdAt, row.id);
        }
      }
      if (chunk.rows < TRIM_CHUNK_ROWS) return 0;
      kept += chunk.bytes;
      const end = this.chunkEnd.get(keyId, ...before) as SizedRow;
      before = [end.createdAt, end.id];
      await nextTurn();
    }
  }
}

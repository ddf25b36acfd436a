import { setImmediate as nextTurn } from 'node:timers/promises';
import type Database from 'better-sqlite3';
import { responseThreadSql, wholeThread, type ResponseRow } from '../rows.js';
import type { ResponseStore, StoredResponse } from '../store.js';
import { chunkedDelete, PRUNE_CHUNK_ROWS } from './chunked-delete.js';
import type { GroupCommit } from './group-commit.js';

interface SizedRow {
  createdAt: number;
  id: string;
  bytes: number;
}

interface AgedRow {
  rowid: number;
  createdAt: number;
}

export class SqliteResponseStore implements ResponseStore {
  private readonly insert;
  private readonly selectThread;
  private readonly oldestFirst;
  private readonly removeThrough;
  private readonly newestFirst;
  private readonly removeUpTo;

  constructor(
    db: Database.Database,
    private readonly writes: GroupCommit,
  ) {
    this.insert = db.prepare('INSERT INTO responses (id, key_id, previous_id, created_at, items) VALUES (?, ?, ?, ?, ?)');
    this.selectThread = db.prepare(responseThreadSql('@id', '@key', '@since'));
    // Rows are in the order they were stored (there is no index by time: migration 18).
    this.oldestFirst = db.prepare(`SELECT rowid, created_at AS createdAt FROM responses WHERE rowid > ? ORDER BY rowid LIMIT ${PRUNE_CHUNK_ROWS}`);
    this.removeThrough = db.prepare('DELETE FROM responses WHERE rowid > ? AND rowid <= ?');
    // octet_length reads a row's header, not the items themselves (nor their overflow pages).
    this.newestFirst = db.prepare(`SELECT created_at AS createdAt, id, octet_length(items) AS bytes FROM responses
      WHERE key_id = ? AND (created_at, id) < (?, ?) ORDER BY created_at DESC, id DESC LIMIT ${PRUNE_CHUNK_ROWS}`);
    this.removeUpTo = chunkedDelete(db, 'responses', 'rowid', 'key_id = ? AND (created_at, id) <= (?, ?)');
  }

  /** Joins the turn's group commit (with the call's ledger row): one transaction instead of one more each. */
  save(response: StoredResponse): Promise<void> {
    return this.writes.writeStatement(() => void this.insert.run(response.id, response.keyId, response.previousId, response.createdAt, response.items));
  }

  async thread(keyId: string, id: string, since: number): Promise<StoredResponse[]> {
    return wholeThread(this.selectThread.all({ id, key: keyId, since }) as ResponseRow[]);
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
      if (fresh !== -1 || rows.length < PRUNE_CHUNK_ROWS || !last) return total;
      after = last.rowid;
      await nextTurn();
    }
  }

  /**
   * Walks the key's responses newest first, a chunk of sizes per statement (the event loop turns
   * between them), to the first one over the budget; it and every older one go in chunked deletes.
   */
  async trim(keyId: string, budget: number): Promise<number> {
    let kept = 0;
    let before: [number, string] = [Number.MAX_SAFE_INTEGER, ''];
    for (;;) {
      const rows = this.newestFirst.all(keyId, ...before) as SizedRow[];
      for (const row of rows) {
        kept += row.bytes;
        if (kept > budget) return this.removeUpTo(keyId, row.createdAt, row.id);
      }
      const last = rows.at(-1);
      if (!last || rows.length < PRUNE_CHUNK_ROWS) return 0;
      before = [last.createdAt, last.id];
      await nextTurn();
    }
  }
}

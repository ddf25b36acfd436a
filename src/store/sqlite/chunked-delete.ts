import { setImmediate as nextTurn } from 'node:timers/promises';
import type Database from 'better-sqlite3';

/** Rows one pruning statement deletes at most: a few milliseconds of the event loop each. */
export const PRUNE_CHUNK_ROWS = 500;

/**
 * A pruning delete in statements of at most PRUNE_CHUNK_ROWS rows, with a turn of the event
 * loop between them. better-sqlite3 is synchronous: one DELETE of an hour's stored responses
 * (100,000 rows of 1 KB) held the event loop for 400 ms, and every call with it; in chunks of
 * 500 no statement takes more than a few ms. Each chunk commits on its own (a prune is not
 * all-or-nothing); resolves with the rows deleted in all.
 *
 * `key` names what identifies a row (`rowid`, or the primary key's columns of a WITHOUT ROWID
 * table); `where` selects the rows to delete, with `?` parameters.
 */
export function chunkedDelete(db: Database.Database, table: string, key: string, where: string): (...params: unknown[]) => Promise<number> {
  const statement = db.prepare(`DELETE FROM ${table} WHERE (${key}) IN (SELECT ${key} FROM ${table} WHERE ${where} LIMIT ${PRUNE_CHUNK_ROWS})`);
  return async (...params) => {
    let total = 0;
    for (;;) {
      const deleted = statement.run(...params).changes;
      total += deleted;
      if (deleted < PRUNE_CHUNK_ROWS) return total;
      await nextTurn();
    }
  };
}

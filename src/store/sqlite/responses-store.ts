import type Database from 'better-sqlite3';
import { responseThreadSql, wholeThread, type ResponseRow } from '../rows.js';
import type { ResponseStore, StoredResponse } from '../store.js';
import { chunkedDelete } from './chunked-delete.js';
import type { GroupCommit } from './group-commit.js';

export class SqliteResponseStore implements ResponseStore {
  private readonly insert;
  private readonly selectThread;
  private readonly removeOld;

  constructor(
    db: Database.Database,
    private readonly writes: GroupCommit,
  ) {
    this.insert = db.prepare('INSERT INTO responses (id, key_id, previous_id, created_at, items) VALUES (?, ?, ?, ?, ?)');
    this.selectThread = db.prepare(responseThreadSql('@id', '@key', '@since'));
    this.removeOld = chunkedDelete(db, 'responses', 'rowid', 'created_at < ?');
  }

  /** Joins the turn's group commit (with the call's ledger row): one transaction instead of one more each. */
  save(response: StoredResponse): Promise<void> {
    return this.writes.write(() => void this.insert.run(response.id, response.keyId, response.previousId, response.createdAt, response.items));
  }

  async thread(keyId: string, id: string, since: number): Promise<StoredResponse[]> {
    return wholeThread(this.selectThread.all({ id, key: keyId, since }) as ResponseRow[]);
  }

  prune(before: number): Promise<number> {
    return this.removeOld(before);
  }
}

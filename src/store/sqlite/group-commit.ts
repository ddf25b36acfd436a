import type Database from 'better-sqlite3';

interface Pending {
  run: () => unknown;
  /** The operation is one statement, which SQLite undoes by itself when it fails: no savepoint. */
  statement: boolean;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit: write operations queued during one turn of the event loop are applied in a
 * single `BEGIN IMMEDIATE` transaction (one lock, one WAL append) instead of one each. Each
 * operation runs in its own savepoint, in queue order, so one that throws is undone alone and
 * the others see each other's effects exactly as if they had committed one by one; every
 * promise settles only after the commit, so "committed before the last byte" still holds.
 * A savepoint costs two statements more: an operation of one statement (`writeStatement`) and
 * a turn's lone operation (its transaction undoes it) go without.
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  private readonly commit: (batch: Pending[]) => Array<{ ok: boolean; value: unknown }>;
  private readonly commitOne: (op: Pending) => unknown;

  constructor(db: Database.Database) {
    const savepoint = db.transaction((op: Pending) => op.run());
    this.commit = db.transaction((batch: Pending[]) =>
      batch.map((op) => {
        try {
          return { ok: true, value: op.statement ? op.run() : savepoint(op) };
        } catch (error) {
          return { ok: false, value: error };
        }
      }),
    ).immediate;
    this.commitOne = db.transaction((op: Pending) => op.run()).immediate;
  }

  /** Queues `run` (synchronous statements) for the next group commit; resolves with its result once committed. */
  write<T>(run: () => T): Promise<T> {
    return this.queued(run, false);
  }

  /** `write` for an operation of exactly one statement. */
  writeStatement<T>(run: () => T): Promise<T> {
    return this.queued(run, true);
  }

  private queued<T>(run: () => T, statement: boolean): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run, statement, resolve: resolve as (value: unknown) => void, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    if (batch.length === 1) {
      const op = batch[0] as Pending;
      try {
        op.resolve(this.commitOne(op));
      } catch (error) {
        op.reject(error);
      }
      return;
    }
    let results: Array<{ ok: boolean; value: unknown }>;
    try {
      results = this.commit(batch);
    } catch (error) {
      // The commit itself failed (disk full, lock timeout): nothing of the batch is durable.
      for (const op of batch) op.reject(error);
      return;
    }
    results.forEach((result, i) => {
      const op = batch[i] as Pending;
      if (result.ok) op.resolve(result.value);
      else op.reject(result.value);
    });
  }
}

import type { BatchWriter } from '../extension.js';
import { pgUnavailable } from './pool.js';

interface Pending<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

export type { BatchWriter };

/**
 * Group commit for PostgreSQL (the twin of sqlite/group-commit.ts): the operations queued during
 * one turn of the event loop are sent as one statement — one round trip, one commit — and each
 * caller's promise settles only when that statement has, so what resolves is committed. A batch
 * the server refused (an error with a SQLSTATE: a deadlock, a bad row) was rolled back whole:
 * its operations are then sent one statement each, so one bad operation fails alone. A batch
 * whose outcome is unknown (the connection broke, a timeout) is not retried: it may have committed.
 *
 * One batch is out at a time: what is queued while it is goes in the next, as soon as it has
 * settled. The statements of one key lock its rows in the server and run in turn there anyway;
 * several out at once only waited on each other's locks (each woken in turn) and carried smaller
 * batches. With one out, the calls of a round trip share the next (docs/performance.md).
 */
export class TickBatch<I, O> {
  private queue: Array<Pending<I, O>> = [];
  private scheduled = false;
  private writing = false;

  constructor(private readonly writer: BatchWriter<I, O>) {}

  run(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      this.schedule();
    });
  }

  /** The next batch at the end of this turn, unless one is out (it schedules the next when it settles). */
  private schedule(): void {
    if (this.scheduled || this.writing) return;
    this.scheduled = true;
    setImmediate(() => void this.flush());
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
    this.writing = true;
    try {
      await this.write(batch);
    } finally {
      this.writing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }

  private async write(batch: Array<Pending<I, O>>): Promise<void> {
    if (batch.length === 1) return this.one(batch[0] as Pending<I, O>);
    let outputs: O[];
    try {
      outputs = await this.writer.many(batch.map((op) => op.input));
    } catch (error) {
      if (pgUnavailable(error)) for (const op of batch) op.reject(error);
      else await Promise.all(batch.map((op) => this.one(op)));
      return;
    }
    batch.forEach((op, i) => op.resolve(outputs[i] as O));
  }

  private async one(op: Pending<I, O>): Promise<void> {
    try {
      op.resolve(await this.writer.one(op.input));
    } catch (error) {
      op.reject(error);
    }
  }
}

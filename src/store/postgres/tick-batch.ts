import { pgUnavailable } from './pool.js';

interface Pending<I, O> {
  input: I;
  resolve: (output: O) => void;
  reject: (error: unknown) => void;
}

/** How a batch is written: all at once (one statement, answers in input order), or one alone. */
export interface BatchWriter<I, O> {
  many(inputs: readonly I[]): Promise<O[]>;
  one(input: I): Promise<O>;
}

/**
 * Group commit for PostgreSQL (the twin of sqlite/group-commit.ts): the operations queued during
 * one turn of the event loop are sent as one statement — one round trip, one commit — and each
 * caller's promise settles only when that statement has, so what resolves is committed. A batch
 * the server refused (an error with a SQLSTATE: a deadlock, a bad row) was rolled back whole:
 * its operations are then sent one statement each, so one bad operation fails alone. A batch
 * whose outcome is unknown (the connection broke, a timeout) is not retried: it may have committed.
 */
export class TickBatch<I, O> {
  private queue: Array<Pending<I, O>> = [];
  private scheduled = false;

  constructor(private readonly writer: BatchWriter<I, O>) {}

  run(input: I): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      this.queue.push({ input, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => void this.flush());
      }
    });
  }

  private async flush(): Promise<void> {
    const batch = this.queue;
    this.queue = [];
    this.scheduled = false;
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

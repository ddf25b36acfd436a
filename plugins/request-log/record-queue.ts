import type { RequestRecord } from './store/log-store.js';

export interface QueueBounds {
  /** Records held in memory at most; beyond it the oldest are dropped (a store that cannot keep up loses log records, never memory). */
  maxQueued: number;
  /** How long a record waits for its batch at most. */
  flushMs: number;
  /** Records per write at most. */
  batchRows: number;
}

/** What the queue tells its owner: a batch that could not be written, records dropped at the bound. */
export interface QueueEvents {
  writeFailed(error: unknown, records: number): void;
  dropped(records: number): void;
}

/**
 * The request log's writes, off the calls' path: a completion hook only pushes its record; a
 * timer writes what gathered, in batches (one transaction or statement each), at most
 * `flushMs` after the first of them arrived. One batch is written at a time; what arrives
 * meanwhile waits for the next.
 */
export class RecordQueue {
  private pending: RequestRecord[] = [];
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly write: (records: readonly RequestRecord[]) => Promise<void>,
    private readonly bounds: QueueBounds,
    private readonly events: QueueEvents,
  ) {}

  push(record: RequestRecord): void {
    if (this.pending.length >= this.bounds.maxQueued) {
      // A tenth at once, so a full queue drops in O(1) per record on average rather than shifting the array each time.
      const drop = Math.max(1, Math.floor(this.bounds.maxQueued / 10));
      this.pending.splice(0, drop);
      this.events.dropped(drop);
    }
    this.pending.push(record);
    this.timer ??= setTimeout(() => void this.flush(), this.bounds.flushMs).unref();
  }

  /** Writes everything queued now; resolves when it is written (or its failure reported). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    while (this.flushing) await this.flushing;
    if (this.pending.length === 0) return;
    const records = this.pending;
    this.pending = [];
    this.flushing = this.writeAll(records);
    await this.flushing;
    this.flushing = null;
    if (this.pending.length > 0) this.timer ??= setTimeout(() => void this.flush(), this.bounds.flushMs).unref();
  }

  private async writeAll(records: RequestRecord[]): Promise<void> {
    for (let start = 0; start < records.length; start += this.bounds.batchRows) {
      const batch = records.slice(start, start + this.bounds.batchRows);
      await this.write(batch).catch((error: unknown) => this.events.writeFailed(error, batch.length));
    }
  }
}

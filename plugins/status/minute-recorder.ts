import type { StatusSample, StatusStore } from './store/status.js';
import { bucketOf } from './latency-buckets.js';

const MINUTE_MS = 60_000;

type Pending = StatusSample & { latency: Map<number, number>; endpoints: Map<string, number> };

/** Adds `n` to the count of `key`. */
const add = <K>(counts: Map<K, number>, key: K, n: number): void => {
  counts.set(key, (counts.get(key) ?? 0) + n);
};

/**
 * Per-model figures of the current minutes, kept in memory and added to the store's rollups on
 * `flush()` (on a timer, before every read, at shutdown): recording a call costs a map lookup.
 * The store adds them (upserts): every instance's figures of a minute sum in its rollup.
 */
export class MinuteRecorder {
  private pending = new Map<string, Pending>();

  constructor(private readonly store: StatusStore) {}

  /** A call to `endpoint` that reached `model`'s upstream: failed or not, and the latency of a success. */
  record(model: string, endpoint: string, now: number, failed: boolean, latencyMs: number | null): void {
    const minute = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    const slot = `${minute} ${model}`;
    let sample = this.pending.get(slot);
    if (!sample) {
      sample = { model, minute, requests: 0, failures: 0, latency: new Map(), endpoints: new Map() };
      this.pending.set(slot, sample);
    }
    sample.requests += 1;
    if (failed) sample.failures += 1;
    add(sample.endpoints, endpoint, 1);
    if (latencyMs !== null) add(sample.latency, bucketOf(latencyMs), 1);
  }

  /** Adds the pending figures to the store's rollups; if that fails (the database unreachable) they wait for the next flush. */
  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const samples = [...this.pending];
    this.pending = new Map();
    try {
      await this.store.record(samples.map(([, sample]) => sample));
    } catch (error) {
      for (const [slot, sample] of samples) this.restore(slot, sample);
      throw error;
    }
  }

  private restore(slot: string, sample: Pending): void {
    const newer = this.pending.get(slot);
    if (newer) {
      sample.requests += newer.requests;
      sample.failures += newer.failures;
      for (const [bucket, count] of newer.latency) add(sample.latency, bucket, count);
      for (const [endpoint, count] of newer.endpoints) add(sample.endpoints, endpoint, count);
    }
    this.pending.set(slot, sample);
  }
}

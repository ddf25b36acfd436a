import type { KeyPatch, KeyRecord, KeyRotation, KeyStore, KeyValueMatch, NewKey } from './store.js';

/** How long, and how many, resolved key values are remembered. */
export const RECENT_KEYS_MS = 1000;
export const RECENT_KEYS_LIMIT = 10_000;

/**
 * Every request looks its key up by value: answers are remembered for a second so the hot path
 * rarely reaches the database, whatever the backend. Any key change made through this wrapper
 * forgets them at once; so does `forget()`, which PostgreSQL's key-change notifications call
 * for changes made by another gateway instance — on SQLite those arrive within the second
 * (docs/configuration.md#keys, Propagation). Unknown values are not remembered.
 *
 * The backends are asynchronous, so a lookup may overlap a change: the memory is cleared
 * before and again after every change, and a lookup stores its answer only if no change began
 * or ended while it was in flight (the generation is unchanged) — an answer read before a
 * change committed is never kept past it. Lookups of one value made while one is in flight
 * share it (a burst of calls with a key no instance remembers asks the database once), unless
 * a change came in between.
 */
export class RecentKeys implements KeyStore {
  private readonly recent = new Map<string, { match: KeyValueMatch; until: number }>();
  private inFlight = new Map<string, Promise<KeyValueMatch | undefined>>();
  private generation = 0;

  constructor(
    private readonly inner: KeyStore,
    private readonly now: () => number = Date.now,
  ) {}

  findByValueHash(hash: Buffer): Promise<KeyValueMatch | undefined> {
    const id = hash.toString('base64');
    const now = this.now();
    const recent = this.recent.get(id);
    if (recent && recent.until > now) return Promise.resolve(recent.match);
    const pending = this.inFlight.get(id);
    if (pending) return pending;
    const lookup = this.lookUp(hash, id, now);
    const inFlight = this.inFlight;
    inFlight.set(id, lookup);
    void lookup.finally(() => inFlight.delete(id)).catch(() => undefined);
    return lookup;
  }

  private async lookUp(hash: Buffer, id: string, now: number): Promise<KeyValueMatch | undefined> {
    const generation = this.generation;
    const match = await this.inner.findByValueHash(hash);
    if (!match || generation !== this.generation) return match;
    if (this.recent.size >= RECENT_KEYS_LIMIT) this.recent.clear();
    this.recent.set(id, { match, until: now + RECENT_KEYS_MS });
    return match;
  }

  get(id: string): Promise<KeyRecord | undefined> {
    return this.inner.get(id);
  }

  list(): Promise<KeyRecord[]> {
    return this.inner.list();
  }

  count(): Promise<number> {
    return this.inner.count();
  }

  create(input: NewKey): Promise<KeyRecord> {
    return this.changing(() => this.inner.create(input));
  }

  update(id: string, patch: KeyPatch, now: number): Promise<KeyRecord | undefined> {
    return this.changing(() => this.inner.update(id, patch, now));
  }

  revoke(id: string, now: number): Promise<KeyRecord | undefined> {
    return this.changing(() => this.inner.revoke(id, now));
  }

  rotate(id: string, rotation: KeyRotation): Promise<KeyRecord | undefined> {
    return this.changing(() => this.inner.rotate(id, rotation));
  }

  private async changing<T>(change: () => Promise<T>): Promise<T> {
    this.forget();
    try {
      return await change();
    } finally {
      this.forget();
    }
  }

  /** Forgets every remembered lookup (a key changed, here or through another instance). */
  forget(): void {
    this.generation += 1;
    this.recent.clear();
    // Lookups already in flight may predate the change: later callers ask afresh.
    this.inFlight = new Map();
  }
}

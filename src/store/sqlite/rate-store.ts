import type Database from 'better-sqlite3';
import type { RateAnswer, RateStore, RateTake } from '../limits.js';
import type { GroupCommit } from './group-commit.js';

type Db = Database.Database;

/** Where a key's window started at its last take here: its first admission in it, that admission's time, and the take's. */
interface WindowStart {
  first: number;
  at: number;
  now: number;
}

/**
 * The rate cap in SQLite (limits.ts; migrations 6 and 15). A take runs in the group-committed
 * `BEGIN IMMEDIATE` transaction, so the write lock orders every process's takes.
 */
export class SqliteRateStore implements RateStore {
  private readonly counter;
  private readonly slotAt;
  private readonly writeSlot;
  private readonly writeCounter;
  private readonly slotsOf;
  private readonly clearSlots;
  private readonly sweepStmt;
  /** Per capped key, the first admission its last take here found in the window, that admission's time, and the take's (headroom): one entry per key that has a cap. */
  private readonly windowStarts = new Map<string, WindowStart>();

  constructor(
    db: Db,
    private readonly writes: GroupCommit,
  ) {
    this.counter = db.prepare('SELECT admitted, rpm_limit FROM rate_counters WHERE key_id = ?');
    this.slotAt = db.prepare('SELECT at FROM rate_slots WHERE key_id = ? AND slot = ?').pluck();
    this.writeSlot = db.prepare('INSERT INTO rate_slots (key_id, slot, at) VALUES (?, ?, ?) ON CONFLICT (key_id, slot) DO UPDATE SET at = excluded.at');
    this.writeCounter = db.prepare(`INSERT INTO rate_counters (key_id, admitted, rpm_limit) VALUES (?, ?, ?)
      ON CONFLICT (key_id) DO UPDATE SET admitted = excluded.admitted, rpm_limit = excluded.rpm_limit`);
    this.slotsOf = db.prepare('SELECT slot, at FROM rate_slots WHERE key_id = ?');
    this.clearSlots = db.prepare('DELETE FROM rate_slots WHERE key_id = ?');
    this.sweepStmt = db.prepare('DELETE FROM rate_slots WHERE at <= ?');
  }

  take(input: RateTake): Promise<RateAnswer> {
    return this.writes.write(() => this.decide(input));
  }

  async sweep(before: number): Promise<number> {
    return this.sweepStmt.run(before).changes;
  }

  /**
   * The take itself, inside the caller's group-committed transaction (also the ledger's reserveAfterTake).
   * The ring (rpm_limit column) has as many slots as the largest limit any take brought: admission
   * k is in slot k % ring, so admission n − limit is still in its slot (fewer than `ring` written since).
   */
  decide(take: RateTake): RateAnswer {
    const { keyId, limit, windowMs, now } = take;
    const row = this.counter.get(keyId) as { admitted: number; rpm_limit: number } | undefined;
    const admitted = row?.admitted ?? 0;
    let ring = row?.rpm_limit ?? limit;
    if (ring < limit) {
      this.growRing(keyId, admitted, ring, limit);
      ring = limit;
    }
    const at = admitted < limit ? undefined : this.timeOf(keyId, admitted - limit, ring);
    if (at !== undefined && at + windowMs > now) return { waitMs: at + windowMs - now, remaining: 0, resetMs: at + windowMs - now };
    this.writeSlot.run(keyId, admitted % ring, now);
    this.writeCounter.run(keyId, admitted + 1, ring);
    return { waitMs: 0, ...this.headroom(take, admitted + 1, ring) };
  }

  /**
   * The headroom after `next` admissions (limits.ts, RateAnswer): the first of admissions
   * next − limit … next − 1 still in the window (their times rise with their numbers); those
   * before it have room for as many calls. The same answer as gateway_rate_headroom, found from
   * where the last take of the key found it, with that admission's time: an admission that left
   * the window stays out, whichever process took it, and one still in it keeps its slot and time.
   * So while it is in the window nothing is read, and once it has left a gallop from the next one
   * reads a slot or a few, where a search of the whole window reads log₂(limit) of them.
   */
  private headroom({ keyId, limit, windowMs, now }: RateTake, next: number, ring: number): { remaining: number; resetMs: number } {
    const from = Math.max(0, next - limit);
    const known = this.windowStarts.get(keyId);
    // Only forward in time: a take dated before the one that found it (another process's clock) searches the whole window.
    const still = known !== undefined && known.now <= now && known.first >= from && known.first < next ? known : undefined;
    if (still && still.at + windowMs > now) {
      still.now = now;
      return { remaining: still.first - (next - limit), resetMs: still.at + windowMs - now };
    }
    // Every admission before low has left the window; high is the first found in it (next: none yet).
    let low = still ? still.first + 1 : from;
    let high = next;
    let highAt = 0;
    const inWindow = (n: number): boolean => {
      const at = this.timeOf(keyId, n, ring);
      if (at === undefined || at + windowMs <= now) return false;
      high = n;
      highAt = at;
      return true;
    };
    // Gallop: probe low, low + 1, low + 3, low + 7 … until one is in the window (or next is reached).
    for (let probe = low, step = 1; probe < next && !inWindow(probe); step *= 2) {
      low = probe + 1;
      probe = Math.min(next, probe + step);
    }
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if (!inWindow(middle)) low = middle + 1;
    }
    if (low < next) this.windowStarts.set(keyId, { first: low, at: highAt, now });
    else this.windowStarts.delete(keyId);
    return { remaining: low - (next - limit), resetMs: low < next ? highAt + windowMs - now : 0 };
  }

  /** The time of admission `n` (undefined: its slot is empty or swept). */
  private timeOf(keyId: string, n: number, ring: number): number | undefined {
    return this.slotAt.get(keyId, n % ring) as number | undefined;
  }

  /**
   * A limit larger than the ring: its admissions (the newest `from`, all the window can hold, as
   * no take's limit was above `from`) move to their slots in a ring of `to`. The take that grows
   * it is always admitted (no admission left in slot n % to), and stores the new ring size.
   */
  private growRing(keyId: string, admitted: number, from: number, to: number): void {
    const times = new Map((this.slotsOf.all(keyId) as Array<{ slot: number; at: number }>).map((row) => [row.slot, row.at]));
    this.clearSlots.run(keyId);
    for (let k = admitted - Math.min(admitted, from); k < admitted; k++) {
      const at = times.get(k % from);
      if (at !== undefined) this.writeSlot.run(keyId, k % to, at);
    }
  }
}

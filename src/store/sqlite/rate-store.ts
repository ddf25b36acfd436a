import type Database from 'better-sqlite3';
import type { RateStore, RateTake } from '../limits.js';
import type { GroupCommit } from './group-commit.js';

type Db = Database.Database;

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

  take(input: RateTake): Promise<number> {
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
  decide({ keyId, limit, windowMs, now }: RateTake): number {
    const row = this.counter.get(keyId) as { admitted: number; rpm_limit: number } | undefined;
    const admitted = row?.admitted ?? 0;
    let ring = row?.rpm_limit ?? limit;
    if (ring < limit) {
      this.growRing(keyId, admitted, ring, limit);
      ring = limit;
    }
    const at = admitted < limit ? undefined : (this.slotAt.get(keyId, (admitted - limit) % ring) as number | undefined);
    if (at !== undefined && at + windowMs > now) return at + windowMs - now;
    this.writeSlot.run(keyId, admitted % ring, now);
    this.writeCounter.run(keyId, admitted + 1, ring);
    return 0;
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

import type Database from 'better-sqlite3';
import type { RateStore, RateTake } from '../limits.js';
import type { GroupCommit } from './group-commit.js';

type Db = Database.Database;

/**
 * The rate cap in SQLite (limits.ts; migration 6). A take runs in the group-committed
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

  /** The take itself, inside the caller's group-committed transaction (also the ledger's reserveAfterTake). */
  decide({ keyId, limit, windowMs, now }: RateTake): number {
    const row = this.counter.get(keyId) as { admitted: number; rpm_limit: number } | undefined;
    const admitted = row?.admitted ?? 0;
    if (row && row.rpm_limit !== limit) this.moveSlots(keyId, admitted, row.rpm_limit, limit);
    const at = this.slotAt.get(keyId, admitted % limit) as number | undefined;
    if (at !== undefined && at + windowMs > now) return at + windowMs - now;
    this.writeSlot.run(keyId, admitted % limit, now);
    this.writeCounter.run(keyId, admitted + 1, limit);
    return 0;
  }

  /** The newest admissions that fit the new limit, into the slots it uses (admission k is in slot k % limit). */
  private moveSlots(keyId: string, admitted: number, from: number, to: number): void {
    const times = new Map((this.slotsOf.all(keyId) as Array<{ slot: number; at: number }>).map((row) => [row.slot, row.at]));
    this.clearSlots.run(keyId);
    for (let k = admitted - Math.min(admitted, from, to); k < admitted; k++) {
      const at = times.get(k % from);
      if (at !== undefined) this.writeSlot.run(keyId, k % to, at);
    }
    this.writeCounter.run(keyId, admitted, to);
  }
}

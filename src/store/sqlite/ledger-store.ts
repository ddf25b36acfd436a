import type Database from 'better-sqlite3';
import { GroupCommit } from './group-commit.js';
import type { CycleSpend, DailyUsage, KeyActivity, LedgerRow, LedgerStore, ReserveInput, ReserveResult } from '../store.js';

type Db = Database.Database;

interface DailyRow {
  day: string;
  model: string;
  requests: number;
  prompt_tokens: number;
  completion_tokens: number;
  charged_nano: number;
  list_nano: number;
}

/**
 * The ledger, spend and reservations in SQLite. Admissions and settlements run in
 * `BEGIN IMMEDIATE` transactions (group-committed: those queued in one event-loop turn share
 * one): the write lock is taken before the first read, so two processes sharing the file
 * cannot both read the same spend and both admit. Statements are
 * prepared once; with WAL and synchronous=NORMAL a commit is one append to the WAL, no fsync.
 */
export class SqliteLedgerStore implements LedgerStore {
  private readonly spentStmt;
  private readonly reservedStmt;
  private readonly insertReservation;
  private readonly deleteReservation;
  private readonly deleteInstance;
  private readonly insertRow;
  private readonly addSpend;
  private readonly dailyStmt;
  private readonly dailyAllStmt;
  private readonly spentAllStmt;
  private readonly reservedAllStmt;
  private readonly activityStmt;
  private readonly writes: GroupCommit;
  private readonly reserveOp: (input: ReserveInput) => ReserveResult;
  private readonly recordOp: (row: LedgerRow, reservationId: number | null) => void;
  private readonly snapshotSpend;

  constructor(db: Db) {
    this.spentStmt = db.prepare('SELECT charged_nano FROM spend WHERE key_id = ? AND cycle = ?').pluck();
    this.reservedStmt = db.prepare('SELECT COALESCE(SUM(amount_nano), 0) FROM reservations WHERE key_id = ? AND cycle = ?').pluck();
    this.insertReservation = db.prepare(
      'INSERT INTO reservations (key_id, cycle, amount_nano, instance, created_at) VALUES (?, ?, ?, ?, ?)',
    );
    this.deleteReservation = db.prepare('DELETE FROM reservations WHERE id = ?');
    this.deleteInstance = db.prepare('DELETE FROM reservations WHERE instance = ?');
    this.insertRow = db.prepare(`INSERT INTO ledger
      (admitted_at, cycle, key_id, model, family, endpoint, stream, status, outcome, attempts,
       prompt_tokens, completion_tokens, usage_estimated, charged_nano, list_nano, upstream_ms, ttft_ms)
      VALUES (@admittedAt, @cycle, @keyId, @model, @family, @endpoint, @stream, @status, @outcome, @attempts,
       @promptTokens, @completionTokens, @usageEstimated, @chargedNanos, @listNanos, @upstreamMs, @ttftMs)`);
    this.addSpend = db.prepare(`INSERT INTO spend (key_id, cycle, charged_nano) VALUES (?, ?, ?)
      ON CONFLICT (key_id, cycle) DO UPDATE SET charged_nano = charged_nano + excluded.charged_nano`);
    const daily = (where: string): string => `SELECT strftime('%Y-%m-%d', admitted_at / 1000, 'unixepoch') AS day, model,
        COUNT(*) AS requests, SUM(prompt_tokens) AS prompt_tokens, SUM(completion_tokens) AS completion_tokens,
        SUM(charged_nano) AS charged_nano, SUM(list_nano) AS list_nano
      FROM ledger WHERE ${where}
      GROUP BY day, model ORDER BY day, model`;
    this.dailyStmt = db.prepare(daily('key_id = ? AND admitted_at >= ?'));
    this.dailyAllStmt = db.prepare(daily('admitted_at >= ?'));
    this.spentAllStmt = db.prepare('SELECT COALESCE(SUM(charged_nano), 0) FROM spend WHERE cycle = ?').pluck();
    this.reservedAllStmt = db.prepare('SELECT COALESCE(SUM(amount_nano), 0) FROM reservations WHERE cycle = ?').pluck();
    this.activityStmt = db.prepare(`SELECT k.id AS key_id,
        (SELECT MAX(l.admitted_at) FROM ledger l WHERE l.key_id = k.id) AS last_used_at,
        COALESCE((SELECT s.charged_nano FROM spend s WHERE s.key_id = k.id AND s.cycle = @cycle), 0) AS spent,
        (SELECT COALESCE(SUM(r.amount_nano), 0) FROM reservations r WHERE r.key_id = k.id AND r.cycle = @cycle) AS reserved
      FROM keys k ORDER BY k.created_at, k.id`);

    this.writes = new GroupCommit(db);
    this.reserveOp = (input: ReserveInput): ReserveResult => {
      const { spent, reserved } = this.readSpend(input.keyId, input.cycle);
      if (spent >= input.ceilingNanos || spent + reserved + input.nanos > input.ceilingNanos) {
        return { admitted: false, spent, reserved };
      }
      const id = Number(this.insertReservation.run(input.keyId, input.cycle, input.nanos, input.instance, input.now).lastInsertRowid);
      return { admitted: true, reservation: { id, keyId: input.keyId, cycle: input.cycle, nanos: input.nanos } };
    };
    this.recordOp = (row: LedgerRow, reservationId: number | null): void => {
      this.insertRow.run({ ...row, stream: row.stream ? 1 : 0, usageEstimated: row.usageEstimated ? 1 : 0 });
      this.addSpend.run(row.keyId, row.cycle, row.chargedNanos);
      if (reservationId !== null) this.deleteReservation.run(reservationId);
    };
    // A read transaction: spend and reservations from one snapshot, never a settlement half-seen.
    this.snapshotSpend = db.transaction((keyId: string | null, cycle: string): CycleSpend =>
      keyId === null
        ? { spent: this.spentAllStmt.get(cycle) as number, reserved: this.reservedAllStmt.get(cycle) as number }
        : this.readSpend(keyId, cycle),
    );
  }

  reserve(input: ReserveInput): Promise<ReserveResult> {
    return this.writes.write(() => this.reserveOp(input));
  }

  record(row: LedgerRow, reservationId: number | null): Promise<void> {
    return this.writes.write(() => this.recordOp(row, reservationId));
  }

  release(reservationId: number): Promise<void> {
    return this.writes.write(() => void this.deleteReservation.run(reservationId));
  }

  async releaseInstance(instance: string): Promise<number> {
    return this.deleteInstance.run(instance).changes;
  }

  async cycleSpend(keyId: string | null, cycle: string): Promise<CycleSpend> {
    return this.snapshotSpend(keyId, cycle);
  }

  async keyActivity(cycle: string): Promise<KeyActivity[]> {
    const rows = this.activityStmt.all({ cycle }) as Array<{ key_id: string; last_used_at: number | null; spent: number; reserved: number }>;
    return rows.map((row) => ({ keyId: row.key_id, lastUsedAt: row.last_used_at, spent: row.spent, reserved: row.reserved }));
  }

  async dailyUsage(keyId: string | null, since: number): Promise<DailyUsage[]> {
    const rows = keyId === null ? this.dailyAllStmt.all(since) : this.dailyStmt.all(keyId, since);
    return (rows as DailyRow[]).map((row) => ({
      day: row.day,
      model: row.model,
      requests: row.requests,
      promptTokens: row.prompt_tokens,
      completionTokens: row.completion_tokens,
      chargedNanos: row.charged_nano,
      listNanos: row.list_nano,
    }));
  }

  private readSpend(keyId: string, cycle: string): CycleSpend {
    return {
      spent: (this.spentStmt.get(keyId, cycle) as number | undefined) ?? 0,
      reserved: this.reservedStmt.get(keyId, cycle) as number,
    };
  }
}

import type Database from 'better-sqlite3';
import type { CycleSpend, DailyUsage, LedgerRow, LedgerStore, ReserveInput, ReserveResult } from '../store.js';

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
 * The ledger, spend and reservations in SQLite. Admission and settlement are each one
 * `BEGIN IMMEDIATE` transaction: the write lock is taken before the first read, so two
 * processes sharing the file cannot both read the same spend and both admit. Statements are
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
  private readonly reserveTx;
  private readonly recordTx;
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
    this.dailyStmt = db.prepare(`SELECT strftime('%Y-%m-%d', admitted_at / 1000, 'unixepoch') AS day, model,
        COUNT(*) AS requests, SUM(prompt_tokens) AS prompt_tokens, SUM(completion_tokens) AS completion_tokens,
        SUM(charged_nano) AS charged_nano, SUM(list_nano) AS list_nano
      FROM ledger WHERE key_id = ? AND admitted_at >= ?
      GROUP BY day, model ORDER BY day, model`);

    const reserve = db.transaction((input: ReserveInput): ReserveResult => {
      const { spent, reserved } = this.readSpend(input.keyId, input.cycle);
      if (spent >= input.ceilingNanos || spent + reserved + input.nanos > input.ceilingNanos) {
        return { admitted: false, spent, reserved };
      }
      const id = Number(this.insertReservation.run(input.keyId, input.cycle, input.nanos, input.instance, input.now).lastInsertRowid);
      return { admitted: true, reservation: { id, keyId: input.keyId, cycle: input.cycle, nanos: input.nanos } };
    });
    this.reserveTx = (input: ReserveInput): ReserveResult => reserve.immediate(input);

    const record = db.transaction((row: LedgerRow, reservationId: number | null): void => {
      this.insertRow.run({ ...row, stream: row.stream ? 1 : 0, usageEstimated: row.usageEstimated ? 1 : 0 });
      this.addSpend.run(row.keyId, row.cycle, row.chargedNanos);
      if (reservationId !== null) this.deleteReservation.run(reservationId);
    });
    this.recordTx = (row: LedgerRow, reservationId: number | null): void => record.immediate(row, reservationId);
    // A read transaction: spend and reservations from one snapshot, never a settlement half-seen.
    this.snapshotSpend = db.transaction((keyId: string, cycle: string): CycleSpend => this.readSpend(keyId, cycle));
  }

  async reserve(input: ReserveInput): Promise<ReserveResult> {
    return this.reserveTx(input);
  }

  async record(row: LedgerRow, reservationId: number | null): Promise<void> {
    this.recordTx(row, reservationId);
  }

  async release(reservationId: number): Promise<void> {
    this.deleteReservation.run(reservationId);
  }

  async releaseInstance(instance: string): Promise<number> {
    return this.deleteInstance.run(instance).changes;
  }

  async cycleSpend(keyId: string, cycle: string): Promise<CycleSpend> {
    return this.snapshotSpend(keyId, cycle);
  }

  async dailyUsage(keyId: string, since: number): Promise<DailyUsage[]> {
    return (this.dailyStmt.all(keyId, since) as DailyRow[]).map((row) => ({
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

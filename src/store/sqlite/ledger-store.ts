import type Database from 'better-sqlite3';
import { exactNumber, exactOrNull } from '../exact.js';
import { toCycleSpend, toDailyUsage, type DailyRow, type SpendRow } from '../rows.js';
import { limitsRefusing } from '../spend-limits.js';
import type { GroupCommit } from './group-commit.js';
import type { RateAnswer, RateTake } from '../limits.js';
import type { CycleSpend, DailyUsage, KeyActivity, LedgerRow, LedgerStore, ReserveInput, ReserveResult, TakenReservation } from '../store.js';

type Db = Database.Database;

/**
 * The ledger, spend and reservations in SQLite. Admissions and settlements run in
 * `BEGIN IMMEDIATE` transactions (group-committed: those queued in one event-loop turn share
 * one): the write lock is taken before the first read, so two processes sharing the file
 * cannot both read the same spend and both admit; the key's expired leases are dropped in the
 * same transaction, so they never count. Statements are
 * prepared once; with WAL and synchronous=NORMAL a commit is one append to the WAL, no fsync.
 * Sums are read as 64-bit integers (`safeIntegers`) and converted exactly: a sum beyond 2^53
 * nano-dollars is refused loudly instead of rounded (src/store/exact.ts).
 */
export class SqliteLedgerStore implements LedgerStore {
  private readonly spentStmt;
  private readonly reservedStmt;
  private readonly insertReservation;
  private readonly deleteReservation;
  private readonly deleteInstance;
  private readonly deleteExpiredOfKey;
  private readonly deleteExpired;
  private readonly renewStmt;
  private readonly insertRow;
  private readonly addSpend;
  private readonly dailyStmt;
  private readonly dailyAllStmt;
  private readonly spentAllStmt;
  private readonly reservedAllStmt;
  private readonly activityStmt;
  private readonly reserveOp: (input: ReserveInput) => ReserveResult;
  private readonly recordOp: (row: LedgerRow, reservationId: number | null) => void;
  private readonly snapshotSpend;

  constructor(
    db: Db,
    private readonly writes: GroupCommit,
    /** The rate cap's take, run inside this store's transaction (SqliteRateStore.decide). */
    private readonly takeOp: (take: RateTake) => RateAnswer,
  ) {
    this.spentStmt = db.prepare('SELECT charged_nano AS spent, upstream_nano AS upstream_spent FROM spend WHERE key_id = ? AND cycle = ?').safeIntegers();
    // What reservations hold at @now: a lease that ended by then no longer counts, swept or not (NULL: made before leases, held until released).
    const live = '(r.expires_at IS NULL OR r.expires_at > @now)';
    const held = (where: string): string =>
      `SELECT COALESCE(SUM(amount_nano), 0) AS reserved, COALESCE(SUM(upstream_nano), 0) AS upstream_reserved FROM reservations r WHERE ${where} AND ${live}`;
    this.reservedStmt = db.prepare(held('r.key_id = @keyId AND r.cycle = @cycle')).safeIntegers();
    this.insertReservation = db.prepare(
      'INSERT INTO reservations (key_id, cycle, amount_nano, upstream_nano, instance, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
    );
    this.deleteReservation = db.prepare('DELETE FROM reservations WHERE id = ?');
    this.deleteInstance = db.prepare('DELETE FROM reservations WHERE instance = ?');
    this.deleteExpiredOfKey = db.prepare('DELETE FROM reservations WHERE key_id = ? AND cycle = ? AND expires_at <= ?');
    this.deleteExpired = db.prepare('DELETE FROM reservations WHERE expires_at <= ?');
    this.renewStmt = db.prepare('UPDATE reservations SET expires_at = ? WHERE id IN (SELECT value FROM json_each(?)) AND expires_at > ?');
    this.insertRow = db.prepare(`INSERT INTO ledger
      (admitted_at, cycle, key_id, model, family, endpoint, stream, status, outcome, attempts,
       prompt_tokens, completion_tokens, usage_estimated, charged_nano, list_nano, upstream_ms, ttft_ms, cached, deployment,
       cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens)
      VALUES (@admittedAt, @cycle, @keyId, @model, @family, @endpoint, @stream, @status, @outcome, @attempts,
       @promptTokens, @completionTokens, @usageEstimated, @chargedNanos, @listNanos, @upstreamMs, @ttftMs, @cached, @deployment,
       @cacheReadTokens, @cacheWriteTokens, @cacheWrite1hTokens, @reasoningTokens)`);
    this.addSpend = db.prepare(`INSERT INTO spend (key_id, cycle, charged_nano, upstream_nano) VALUES (?, ?, ?, ?)
      ON CONFLICT (key_id, cycle) DO UPDATE SET charged_nano = charged_nano + excluded.charged_nano,
        upstream_nano = upstream_nano + excluded.upstream_nano`);
    const daily = (where: string): string => `SELECT strftime('%Y-%m-%d', admitted_at / 1000, 'unixepoch') AS day, model, endpoint,
        COUNT(*) AS requests, SUM(prompt_tokens) AS prompt_tokens, SUM(completion_tokens) AS completion_tokens,
        SUM(cache_read_tokens) AS cache_read_tokens, SUM(cache_write_tokens) AS cache_write_tokens,
        SUM(cache_write_1h_tokens) AS cache_write_1h_tokens, SUM(reasoning_tokens) AS reasoning_tokens,
        SUM(charged_nano) AS charged_nano, SUM(list_nano) AS list_nano, SUM(cached) AS cached_requests
      FROM ledger WHERE ${where}
      GROUP BY day, model, endpoint ORDER BY day, model, endpoint`;
    this.dailyStmt = db.prepare(daily('key_id = ? AND admitted_at >= ?')).safeIntegers();
    this.dailyAllStmt = db.prepare(daily('admitted_at >= ?')).safeIntegers();
    this.spentAllStmt = db
      .prepare('SELECT COALESCE(SUM(charged_nano), 0) AS spent, COALESCE(SUM(upstream_nano), 0) AS upstream_spent FROM spend WHERE cycle = ?')
      .safeIntegers();
    this.reservedAllStmt = db.prepare(held('r.cycle = @cycle')).safeIntegers();
    this.activityStmt = db
      .prepare(
        `SELECT k.id AS key_id,
        (SELECT MAX(l.admitted_at) FROM ledger l WHERE l.key_id = k.id) AS last_used_at,
        COALESCE(s.charged_nano, 0) AS spent, COALESCE(s.upstream_nano, 0) AS upstream_spent,
        (SELECT COALESCE(SUM(r.amount_nano), 0) FROM reservations r WHERE r.key_id = k.id AND r.cycle = @cycle AND ${live}) AS reserved,
        (SELECT COALESCE(SUM(r.upstream_nano), 0) FROM reservations r WHERE r.key_id = k.id AND r.cycle = @cycle AND ${live}) AS upstream_reserved
      FROM keys k LEFT JOIN spend s ON s.key_id = k.id AND s.cycle = @cycle ORDER BY k.created_at, k.id`,
      )
      .safeIntegers();

    this.reserveOp = (input: ReserveInput): ReserveResult => {
      this.deleteExpiredOfKey.run(input.keyId, input.cycle, input.now);
      const figures = this.readSpend(input.keyId, input.cycle, input.now);
      const refusedBy = limitsRefusing(input, figures);
      if (refusedBy.length) return { admitted: false, refusedBy, ...figures };
      const { keyId, cycle, nanos, upstreamNanos } = input;
      const id = Number(this.insertReservation.run(keyId, cycle, nanos, upstreamNanos, input.instance, input.now, input.expiresAt).lastInsertRowid);
      return { admitted: true, reservation: { id, keyId, cycle, nanos, upstreamNanos } };
    };
    this.recordOp = (row: LedgerRow, reservationId: number | null): void => {
      this.insertRow.run({ ...row, stream: row.stream ? 1 : 0, usageEstimated: row.usageEstimated ? 1 : 0, cached: row.cached ? 1 : 0 });
      this.addSpend.run(row.keyId, row.cycle, row.chargedNanos, row.listNanos);
      if (reservationId !== null) this.deleteReservation.run(reservationId);
    };
    // A read transaction: spend and reservations from one snapshot, never a settlement half-seen.
    this.snapshotSpend = db.transaction((keyId: string | null, cycle: string, now: number): CycleSpend =>
      keyId === null ? spendOf(this.spentAllStmt.get(cycle), this.reservedAllStmt.get({ cycle, now })) : this.readSpend(keyId, cycle, now),
    );
  }

  reserve(input: ReserveInput): Promise<ReserveResult> {
    return this.writes.write(() => this.reserveOp(input));
  }

  reserveAfterTake(take: RateTake, input: ReserveInput): Promise<TakenReservation> {
    return this.writes.write(() => {
      const rate = this.takeOp(take);
      return { ...rate, result: rate.waitMs === 0 ? this.reserveOp(input) : null };
    });
  }

  record(row: LedgerRow, reservationId: number | null): Promise<void> {
    return this.writes.write(() => this.recordOp(row, reservationId));
  }

  release(reservationId: number): Promise<void> {
    return this.writes.writeStatement(() => void this.deleteReservation.run(reservationId));
  }

  async releaseInstance(instance: string): Promise<number> {
    return this.deleteInstance.run(instance).changes;
  }

  renewLeases(reservationIds: readonly number[], expiresAt: number, now: number): Promise<number> {
    if (reservationIds.length === 0) return Promise.resolve(0);
    return this.writes.writeStatement(() => this.renewStmt.run(expiresAt, JSON.stringify(reservationIds), now).changes);
  }

  async sweepExpiredLeases(now: number): Promise<number> {
    return this.deleteExpired.run(now).changes;
  }

  async cycleSpend(keyId: string | null, cycle: string, now: number): Promise<CycleSpend> {
    return this.snapshotSpend(keyId, cycle, now);
  }

  async keyActivity(cycle: string, now: number): Promise<KeyActivity[]> {
    const rows = this.activityStmt.all({ cycle, now }) as Array<Wide<SpendRow> & { key_id: string; last_used_at: bigint | null }>;
    return rows.map((row) => ({ keyId: row.key_id, lastUsedAt: exactOrNull(row.last_used_at), ...spendOf(row, row) }));
  }

  async dailyUsage(keyId: string | null, since: number): Promise<DailyUsage[]> {
    const rows = keyId === null ? this.dailyAllStmt.all(since) : this.dailyStmt.all(keyId, since);
    return (rows as Array<Record<keyof DailyRow, string | bigint>>).map((row) =>
      toDailyUsage({
        day: String(row.day),
        model: String(row.model),
        endpoint: String(row.endpoint),
        requests: exactNumber(row.requests as bigint),
        prompt_tokens: exactNumber(row.prompt_tokens as bigint),
        completion_tokens: exactNumber(row.completion_tokens as bigint),
        cache_read_tokens: exactNumber(row.cache_read_tokens as bigint),
        cache_write_tokens: exactNumber(row.cache_write_tokens as bigint),
        cache_write_1h_tokens: exactNumber(row.cache_write_1h_tokens as bigint),
        reasoning_tokens: exactNumber(row.reasoning_tokens as bigint),
        charged_nano: exactNumber(row.charged_nano as bigint),
        list_nano: exactNumber(row.list_nano as bigint),
        cached_requests: exactNumber(row.cached_requests as bigint),
      }),
    );
  }

  private readSpend(keyId: string, cycle: string, now: number): CycleSpend {
    return spendOf(this.spentStmt.get(keyId, cycle), this.reservedStmt.get({ keyId, cycle, now }));
  }
}

/** A row's integers as read with safeIntegers. */
type Wide<T> = { [K in keyof T]: bigint };

/** Settled spend (absent: no row yet) and holds, as read with safeIntegers, converted exactly. */
function spendOf(settled: unknown, held: unknown): CycleSpend {
  const spent = settled as Pick<Wide<SpendRow>, 'spent' | 'upstream_spent'> | undefined;
  const holds = held as Pick<Wide<SpendRow>, 'reserved' | 'upstream_reserved'>;
  return toCycleSpend({
    spent: exactNumber(spent?.spent ?? 0n),
    reserved: exactNumber(holds.reserved),
    upstream_spent: exactNumber(spent?.upstream_spent ?? 0n),
    upstream_reserved: exactNumber(holds.upstream_reserved),
  });
}

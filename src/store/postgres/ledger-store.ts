import type { Pool } from 'pg';
import { toCycleSpend, toDailyUsage, type DailyRow, type SpendRow } from '../rows.js';
import { limitsRefusing, NO_SPEND } from '../spend-limits.js';
import { admissionWriter, rateAnswer, takeThenAdmitWriter, type AdmitRow, type TakeThenAdmit, type TakeThenAdmitRow } from './admission-batch.js';
import { inTransaction } from './pool.js';
import { settlementWriter, type Settlement } from './record-batch.js';
import { TickBatch } from './tick-batch.js';
import type { RateTake } from '../limits.js';
import type { CycleSpend, DailyUsage, KeyActivity, LedgerRow, LedgerStore, ReserveInput, ReserveResult, TakenReservation } from '../store.js';

const RELEASE = {
  name: 'ledger_release',
  text: `WITH gone AS (DELETE FROM reservations WHERE id = $1 RETURNING key_id, cycle, amount_nano, upstream_nano)
    UPDATE spend s SET reserved_nano = s.reserved_nano - gone.amount_nano, reserved_upstream_nano = s.reserved_upstream_nano - gone.upstream_nano
    FROM gone WHERE s.key_id = gone.key_id AND s.cycle = gone.cycle`,
};

/** Reservations dropped in bulk, and what they held taken off each (key, cycle)'s held figures. */
export const releasing = (which: string): string => `WITH gone AS (DELETE FROM reservations WHERE ${which} RETURNING key_id, cycle, amount_nano, upstream_nano),
    held AS (SELECT key_id, cycle, SUM(amount_nano)::bigint AS amount, SUM(upstream_nano)::bigint AS upstream FROM gone GROUP BY key_id, cycle),
    settled AS (UPDATE spend s SET reserved_nano = s.reserved_nano - held.amount, reserved_upstream_nano = s.reserved_upstream_nano - held.upstream
      FROM held WHERE s.key_id = held.key_id AND s.cycle = held.cycle)
  SELECT COUNT(*) AS released FROM gone`;
const RELEASE_INSTANCE = releasing('instance = $1');
// Rows a release or an admission is deleting right now are theirs to account for: skipped.
const SWEEP = releasing('id IN (SELECT id FROM reservations WHERE expires_at <= $1 FOR UPDATE SKIP LOCKED)');
const RENEW = {
  name: 'ledger_renew',
  text: 'UPDATE reservations SET expires_at = $1 WHERE id = ANY($2::bigint[]) AND expires_at > $3',
};

/**
 * Taken by the bulk releases (an instance's leftovers, expired leases): each updates several
 * spend rows in an order of the planner's choosing, so two at once could deadlock. Sweeps
 * only try it (another instance sweeping is as good); an instance's release waits for it.
 */
const BULK_RELEASE_LOCK = 7_264_853_012;

/**
 * spend's held columns count a reservation until an admission or the sweep drops it; what leases
 * ended by the read's instant still hold is taken off them (a dead instance holds a ceiling for
 * at most its lease, whenever the sweep runs). One statement, one snapshot: never a release half-seen.
 */
const ended = (
  where: string,
  now: string,
): string => `SELECT COALESCE(SUM(r.amount_nano), 0)::bigint AS amount, COALESCE(SUM(r.upstream_nano), 0)::bigint AS upstream
    FROM reservations r WHERE ${where} AND r.expires_at <= ${now}`;
const SPEND_KEY = {
  name: 'ledger_spend_key',
  text: `SELECT s.charged_nano AS spent, s.reserved_nano - e.amount AS reserved, s.upstream_nano AS upstream_spent, s.reserved_upstream_nano - e.upstream AS upstream_reserved
    FROM spend s CROSS JOIN LATERAL (${ended('r.key_id = s.key_id AND r.cycle = s.cycle', '$3')}) e
    WHERE s.key_id = $1 AND s.cycle = $2`,
};
const SPEND_ALL = `WITH e AS (${ended('r.cycle = $1', '$2')})
  SELECT COALESCE(SUM(s.charged_nano), 0)::bigint AS spent, (COALESCE(SUM(s.reserved_nano), 0) - (SELECT amount FROM e))::bigint AS reserved,
    COALESCE(SUM(s.upstream_nano), 0)::bigint AS upstream_spent, (COALESCE(SUM(s.reserved_upstream_nano), 0) - (SELECT upstream FROM e))::bigint AS upstream_reserved
  FROM spend s WHERE s.cycle = $1`;

// A UTC day of an epoch-ms instant, as SQLite's strftime('%Y-%m-%d', ms / 1000, 'unixepoch') gives it.
const daily = (where: string): string => `SELECT to_char(to_timestamp(admitted_at / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day,
    model, endpoint, COUNT(*) AS requests, SUM(prompt_tokens)::bigint AS prompt_tokens, SUM(completion_tokens)::bigint AS completion_tokens,
    SUM(cache_read_tokens)::bigint AS cache_read_tokens, SUM(cache_write_tokens)::bigint AS cache_write_tokens,
    SUM(cache_write_1h_tokens)::bigint AS cache_write_1h_tokens,
    SUM(reasoning_tokens)::bigint AS reasoning_tokens,
    SUM(charged_nano)::bigint AS charged_nano, SUM(list_nano)::bigint AS list_nano, COUNT(*) FILTER (WHERE cached) AS cached_requests
  FROM ledger WHERE ${where}
  GROUP BY day, model, endpoint ORDER BY day, model COLLATE "C", endpoint COLLATE "C"`;
const DAILY_KEY = daily('key_id = $1 AND admitted_at >= $2');
const DAILY_ALL = daily('admitted_at >= $1');

const ACTIVITY = `SELECT k.id AS key_id,
    (SELECT MAX(l.admitted_at) FROM ledger l WHERE l.key_id = k.id) AS last_used_at,
    COALESCE(s.charged_nano, 0) AS spent, COALESCE(s.reserved_nano - e.amount, 0) AS reserved,
    COALESCE(s.upstream_nano, 0) AS upstream_spent, COALESCE(s.reserved_upstream_nano - e.upstream, 0) AS upstream_reserved
  FROM keys k LEFT JOIN spend s ON s.key_id = k.id AND s.cycle = $1
    LEFT JOIN LATERAL (${ended('r.key_id = k.id AND r.cycle = $1', '$2')}) e ON true
  ORDER BY k.created_at, k.id COLLATE "C"`;

/** What gateway_admit decided, as LedgerStore.reserve answers it. */
function decision(input: ReserveInput, decided: AdmitRow): ReserveResult {
  const { keyId, cycle, nanos, upstreamNanos } = input;
  if (decided.reservation_id !== null) return { admitted: true, reservation: { id: decided.reservation_id, keyId, cycle, nanos, upstreamNanos } };
  const figures = toCycleSpend(decided);
  return { admitted: false, refusedBy: limitsRefusing(input, figures), ...figures };
}

/** The ledger, spend and reservations in PostgreSQL: the admissions of one event-loop turn share one round trip (admission-batch.ts), and so do its settlements (record-batch.ts). */
export class PgLedgerStore implements LedgerStore {
  private readonly admissions: TickBatch<ReserveInput, AdmitRow>;
  private readonly takesThenAdmissions: TickBatch<TakeThenAdmit, TakeThenAdmitRow>;
  private readonly settlements: TickBatch<Settlement, void>;

  constructor(private readonly pool: Pool) {
    this.admissions = new TickBatch(admissionWriter(pool));
    this.takesThenAdmissions = new TickBatch(takeThenAdmitWriter(pool));
    this.settlements = new TickBatch(settlementWriter(pool));
  }

  async reserve(input: ReserveInput): Promise<ReserveResult> {
    return decision(input, await this.admissions.run(input));
  }

  /** Group-committed with the other calls' takes and admissions of the same event-loop turn. */
  async reserveAfterTake(take: RateTake, input: ReserveInput): Promise<TakenReservation> {
    const decided = await this.takesThenAdmissions.run({ take, reserve: input });
    return { ...rateAnswer(decided), result: decided.wait > 0 ? null : decision(input, decided) };
  }

  /** Group-committed with the settlements of the same event-loop turn (tick-batch.ts); resolves once committed. */
  record(row: LedgerRow, reservationId: number | null): Promise<void> {
    return this.settlements.run({ row, reservationId });
  }

  async release(reservationId: number): Promise<void> {
    await this.pool.query({ ...RELEASE, values: [reservationId] });
  }

  releaseInstance(instance: string): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      await client.query('SELECT pg_advisory_xact_lock($1)', [BULK_RELEASE_LOCK]);
      return (await client.query<{ released: number }>(RELEASE_INSTANCE, [instance])).rows[0]?.released ?? 0;
    });
  }

  async renewLeases(reservationIds: readonly number[], expiresAt: number, now: number): Promise<number> {
    if (reservationIds.length === 0) return 0;
    return (await this.pool.query({ ...RENEW, values: [expiresAt, reservationIds, now] })).rowCount ?? 0;
  }

  sweepExpiredLeases(now: number): Promise<number> {
    return inTransaction(this.pool, async (client) => {
      const locked = (await client.query<{ locked: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS locked', [BULK_RELEASE_LOCK])).rows[0];
      if (!locked?.locked) return 0;
      return (await client.query<{ released: number }>(SWEEP, [now])).rows[0]?.released ?? 0;
    });
  }

  async cycleSpend(keyId: string | null, cycle: string, now: number): Promise<CycleSpend> {
    const result =
      keyId === null
        ? await this.pool.query<SpendRow>(SPEND_ALL, [cycle, now])
        : await this.pool.query<SpendRow>({ ...SPEND_KEY, values: [keyId, cycle, now] });
    const row = result.rows[0];
    return row ? toCycleSpend(row) : { ...NO_SPEND };
  }

  async dailyUsage(keyId: string | null, since: number): Promise<DailyUsage[]> {
    const result = keyId === null ? await this.pool.query<DailyRow>(DAILY_ALL, [since]) : await this.pool.query<DailyRow>(DAILY_KEY, [keyId, since]);
    return result.rows.map(toDailyUsage);
  }

  async keyActivity(cycle: string, now: number): Promise<KeyActivity[]> {
    const rows = (await this.pool.query<SpendRow & { key_id: string; last_used_at: number | null }>(ACTIVITY, [cycle, now])).rows;
    return rows.map((row) => ({ keyId: row.key_id, lastUsedAt: row.last_used_at, ...toCycleSpend(row) }));
  }
}

import type { Pool } from 'pg';
import type { SpendRow } from '../rows.js';
import type { RateAnswer, RateTake } from '../limits.js';
import type { ReserveInput } from '../store.js';
import type { BatchWriter } from './tick-batch.js';

/**
 * Admissions and rate-cap takes of one event-loop turn in one statement each (tick-batch.ts).
 * Admissions (with or without a take first) are one call of gateway_admit_runs (functions-runs.ts),
 * which decides a run of one key's calls at once and otherwise calls the one-call functions in
 * order; takes alone are the one-call function called once per input by a lateral join. Each of
 * those is a volatile function, so each of its statements reads a fresh snapshot that includes
 * what the calls before it in the batch did: every decision is the one the calls made one by one
 * would have made. The inputs are sent sorted by key (code-unit order, the same as COLLATE "C"),
 * so batches of different instances lock the keys' rows in the same order and never wait on each
 * other in a cycle.
 */

export type AdmitRow = { reservation_id: number | null } & SpendRow;

const ADMIT_ONE = {
  name: 'ledger_admit',
  text: 'SELECT reservation_id, spent, reserved, upstream_spent, upstream_reserved FROM gateway_admit($1, $2, $3, $4, $5, $6, $7, $8, $9)',
};
/**
 * The headroom after a take (gateway_rate_headroom), in the take's statement: joined laterally
 * on its answer, so it runs after it. An admission without a take (a key with a ceiling and no
 * cap, in a batch) does not call it: the condition on the outer row is a one-time filter.
 */
const HEADROOM = (key: string, limit: string, window: string, now: string, wait: string): string =>
  `LEFT JOIN LATERAL (SELECT r.remaining, r.reset FROM gateway_rate_headroom(${key}, ${limit}, ${window}, ${now}, ${wait}) AS r
      WHERE ${limit} IS NOT NULL) AS h ON true`;

const TAKE_ONE = {
  name: 'rate_take',
  text: `SELECT w.wait, h.remaining, h.reset FROM gateway_rate_take($1, $2, $3, $4) AS w(wait) ${HEADROOM('$1', '$2', '$3', '$4', 'w.wait')}`,
};
const TAKE_MANY = {
  name: 'rate_take_many',
  text: `SELECT i.ord, w.wait, h.remaining, h.reset FROM unnest($1::text[], $2::integer[], $3::bigint[], $4::bigint[])
      WITH ORDINALITY AS i(key_id, rpm_limit, window_ms, now, ord)
    CROSS JOIN LATERAL gateway_rate_take(i.key_id, i.rpm_limit, i.window_ms, i.now) AS w(wait)
    ${HEADROOM('i.key_id', 'i.rpm_limit', 'i.window_ms', 'i.now', 'w.wait')}`,
};

const TAKE_THEN_ADMIT_ONE = {
  name: 'take_then_admit',
  text: `SELECT a.wait, h.remaining, h.reset, a.reservation_id, a.spent, a.reserved, a.upstream_spent, a.upstream_reserved
    FROM gateway_take_then_admit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12) AS a ${HEADROOM('$1', '$2', '$3', '$4', 'a.wait')}`,
};
/**
 * A batch's admissions, with or without takes (NULL limit, window and take time: none). The
 * headroom of each take is read after the whole batch (the function's rows are all made before
 * the join reads one): the figures of the key's last call of the batch, which headroomOf
 * corrects for the calls before it.
 */
const ADMIT_RUNS = {
  name: 'admit_runs',
  text: `SELECT a.ord, a.wait, h.remaining, h.reset, a.reservation_id, a.spent, a.reserved, a.upstream_spent, a.upstream_reserved
    FROM gateway_admit_runs($1::text[], $2::integer[], $3::bigint[], $4::bigint[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[],
      $10::text[], $11::bigint[], $12::bigint[]) AS a
    ${HEADROOM('($1::text[])[a.ord]', '($2::integer[])[a.ord]', '($3::bigint[])[a.ord]', '($4::bigint[])[a.ord]', 'a.wait')}`,
};

const byKey = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** The inputs' positions, stably sorted by their lock order. */
function lockOrder<I>(inputs: readonly I[], rank: (input: I) => string): number[] {
  return inputs.map((_, i) => i).sort((a, b) => byKey(rank(inputs[a] as I), rank(inputs[b] as I)) || a - b);
}

/** Sends the inputs in lock order, column by column, and answers in the inputs' order. */
async function lateral<I, R extends { ord: number }>(
  pool: Pool,
  statement: { name: string; text: string },
  inputs: readonly I[],
  rank: (input: I) => string,
  values: (input: I) => unknown[],
): Promise<R[]> {
  const order = lockOrder(inputs, rank);
  const columns: unknown[][] = [];
  for (const position of order) values(inputs[position] as I).forEach((value, c) => (columns[c] ??= []).push(value));
  const rows = (await pool.query<R>({ ...statement, values: columns })).rows;
  const answers: R[] = new Array<R>(inputs.length);
  for (const row of rows) answers[order[row.ord - 1] as number] = row;
  if (rows.length !== inputs.length) throw new Error(`${statement.name} answered ${rows.length} rows for ${inputs.length} inputs`);
  return answers;
}

const admitValues = (input: ReserveInput): unknown[] => [
  input.keyId,
  input.cycle,
  input.nanos,
  input.upstreamNanos,
  input.ceilingNanos,
  input.upstreamLimitNanos,
  input.instance,
  input.now,
  input.expiresAt,
];

/** An admission without a take, as gateway_admit_runs reads it. */
const untakenValues = (input: ReserveInput): unknown[] => [input.keyId, null, null, null, ...admitValues(input).slice(1)];

export function admissionWriter(pool: Pool): BatchWriter<ReserveInput, AdmitRow> {
  return {
    many: (inputs) => lateral<ReserveInput, AdmitRow & { ord: number }>(pool, ADMIT_RUNS, inputs, (i) => `${i.keyId}\u0000${i.cycle}`, untakenValues),
    async one(input) {
      const row = (await pool.query<AdmitRow>({ ...ADMIT_ONE, values: admitValues(input) })).rows[0];
      if (!row) throw new Error('gateway_admit answered no row');
      return row;
    },
  };
}

/** A call's take and reservation (LedgerStore.reserveAfterTake); `wait` > 0: refused by the take, nothing reserved. */
export interface TakeThenAdmit {
  take: RateTake;
  reserve: ReserveInput;
}

/** A take's answer as the statements give it (`remaining` and `reset` null for an admission without a take). */
interface TakeRow {
  wait: number;
  remaining: number | null;
  reset: number | null;
}

export type TakeThenAdmitRow = TakeRow & AdmitRow;

/** A take's row as RateStore.take answers it. */
export const rateAnswer = (row: TakeRow): RateAnswer => ({ waitMs: row.wait, remaining: row.remaining ?? 0, resetMs: row.reset ?? 0 });

/**
 * Each take's remaining count as at its own turn, from a batch of gateway_admit_runs, whose rows
 * carry the figures after the batch's last take of their key: the calls of the key it admitted
 * after this one are counted back (never beyond the limit). `rows` in the inputs' order, which
 * is the order the batch decided a key's calls in (lockOrder is stable).
 */
function headroomOf(inputs: readonly TakeThenAdmit[], rows: TakeThenAdmitRow[]): TakeThenAdmitRow[] {
  const laterAdmitted = new Map<string, number>();
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i] as TakeThenAdmitRow;
    const { take } = inputs[i] as TakeThenAdmit;
    if (row.wait > 0 || row.remaining === null) continue;
    const later = laterAdmitted.get(take.keyId) ?? 0;
    rows[i] = { ...row, remaining: Math.min(take.limit, row.remaining + later) };
    laterAdmitted.set(take.keyId, later + 1);
  }
  return rows;
}

const takeThenAdmitValues = ({ take, reserve }: TakeThenAdmit): unknown[] => [
  take.keyId,
  take.limit,
  take.windowMs,
  take.now,
  ...admitValues(reserve).slice(1),
];

export function takeThenAdmitWriter(pool: Pool): BatchWriter<TakeThenAdmit, TakeThenAdmitRow> {
  return {
    many: async (inputs) =>
      headroomOf(
        inputs,
        await lateral<TakeThenAdmit, TakeThenAdmitRow & { ord: number }>(
          pool,
          ADMIT_RUNS,
          inputs,
          (i) => `${i.reserve.keyId}\u0000${i.reserve.cycle}`,
          takeThenAdmitValues,
        ),
      ),
    async one(input) {
      const row = (await pool.query<TakeThenAdmitRow>({ ...TAKE_THEN_ADMIT_ONE, values: takeThenAdmitValues(input) })).rows[0];
      if (!row) throw new Error('gateway_take_then_admit answered no row');
      return row;
    },
  };
}

const takeValues = (input: RateTake): unknown[] => [input.keyId, input.limit, input.windowMs, input.now];

export function rateTakeWriter(pool: Pool): BatchWriter<RateTake, RateAnswer> {
  return {
    // Each take's headroom is read right after it (the lateral join runs row by row): no correction.
    async many(inputs) {
      const rows = await lateral<RateTake, TakeRow & { ord: number }>(pool, TAKE_MANY, inputs, (i) => i.keyId, takeValues);
      return rows.map(rateAnswer);
    },
    async one(input) {
      const row = (await pool.query<TakeRow>({ ...TAKE_ONE, values: takeValues(input) })).rows[0];
      if (!row) throw new Error('gateway_rate_take answered no row');
      return rateAnswer(row);
    },
  };
}

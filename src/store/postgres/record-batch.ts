import type { Pool } from 'pg';
import type { LedgerRow } from '../store.js';
import type { BatchWriter } from './tick-batch.js';

/** One call's settlement: its row and the reservation it settles (null: none). */
export interface Settlement {
  row: LedgerRow;
  reservationId: number | null;
}

/**
 * The spend changes, summed per (key, cycle) — one statement may change a row only once — and
 * sorted, so instances settling overlapping keys lock their spend rows in the same order.
 */
const SPEND_UPSERT = `INSERT INTO spend AS s (key_id, cycle, charged_nano, reserved_nano, upstream_nano, reserved_upstream_nano)
    SELECT key_id, cycle, SUM(charged)::bigint, -SUM(held)::bigint, SUM(upstream)::bigint, -SUM(held_upstream)::bigint
      FROM deltas GROUP BY key_id, cycle ORDER BY key_id COLLATE "C", cycle COLLATE "C"
    ON CONFLICT (key_id, cycle) DO UPDATE SET charged_nano = s.charged_nano + EXCLUDED.charged_nano,
      reserved_nano = s.reserved_nano + EXCLUDED.reserved_nano, upstream_nano = s.upstream_nano + EXCLUDED.upstream_nano,
      reserved_upstream_nano = s.reserved_upstream_nano + EXCLUDED.reserved_upstream_nano`;

const COLUMNS = `admitted_at, cycle, key_id, model, family, endpoint, stream, status, outcome, attempts,
        prompt_tokens, completion_tokens, usage_estimated, charged_nano, list_nano, upstream_ms, ttft_ms, cached, deployment,
        cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens`;

/**
 * One settlement in one statement (so committed when it resolves): the row, its charged and
 * upstream (list) costs added to the cycle's spend, the reservation dropped and what it held
 * taken off its cycle's `reserved_nano` and `reserved_upstream_nano`.
 */
const RECORD_ONE = {
  name: 'ledger_record',
  text: `WITH released AS (
      DELETE FROM reservations WHERE id = $24::bigint RETURNING key_id, cycle, amount_nano, upstream_nano
    ), written AS (
      INSERT INTO ledger (${COLUMNS})
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23)
    ), deltas (key_id, cycle, charged, upstream, held, held_upstream) AS (
      SELECT $3::text, $2::text, $14::bigint, $15::bigint, 0::bigint, 0::bigint
      UNION ALL SELECT key_id, cycle, 0, 0, amount_nano, upstream_nano FROM released
    )
    ${SPEND_UPSERT}`,
};

/** Many settlements in one statement: the same, the rows given column by column (unnest). */
const RECORD_MANY = {
  name: 'ledger_record_many',
  text: `WITH rows AS (
      SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::boolean[], $8::integer[],
        $9::text[], $10::integer[], $11::bigint[], $12::bigint[], $13::boolean[], $14::bigint[], $15::bigint[],
        $16::double precision[], $17::double precision[], $18::boolean[], $19::text[], $20::bigint[], $21::bigint[], $22::bigint[], $23::bigint[])
        AS r(${COLUMNS})
    ), released AS (
      DELETE FROM reservations WHERE id = ANY($24::bigint[]) RETURNING key_id, cycle, amount_nano, upstream_nano
    ), written AS (
      INSERT INTO ledger (${COLUMNS}) SELECT ${COLUMNS} FROM rows
    ), deltas (key_id, cycle, charged, upstream, held, held_upstream) AS (
      SELECT key_id, cycle, charged_nano, list_nano, 0::bigint, 0::bigint FROM rows
      UNION ALL SELECT key_id, cycle, 0, 0, amount_nano, upstream_nano FROM released
    )
    ${SPEND_UPSERT}`,
};

function valuesOf({ row, reservationId }: Settlement): unknown[] {
  return [
    row.admittedAt,
    row.cycle,
    row.keyId,
    row.model,
    row.family,
    row.endpoint,
    row.stream,
    row.status,
    row.outcome,
    row.attempts,
    row.promptTokens,
    row.completionTokens,
    row.usageEstimated,
    row.chargedNanos,
    row.listNanos,
    row.upstreamMs,
    row.ttftMs,
    row.cached,
    row.deployment,
    row.cacheReadTokens,
    row.cacheWriteTokens,
    row.cacheWrite1hTokens,
    row.reasoningTokens,
    reservationId,
  ];
}

/** Columns of a ledger row in valuesOf's order (the reservation id follows them). */
const ROW_COLUMNS = 23;

/** The rows column by column, and the reservations they settle (null ones left out). */
function columnsOf(batch: readonly Settlement[]): unknown[][] {
  const columns: unknown[][] = Array.from({ length: ROW_COLUMNS }, () => []);
  const reservations: number[] = [];
  for (const settlement of batch) {
    const values = valuesOf(settlement);
    for (let i = 0; i < ROW_COLUMNS; i++) (columns[i] as unknown[]).push(values[i]);
    if (settlement.reservationId !== null) reservations.push(settlement.reservationId);
  }
  return [...columns, reservations];
}

/** Settlements group-committed (tick-batch.ts): those of one event-loop turn in one statement. */
export function settlementWriter(pool: Pool): BatchWriter<Settlement, void> {
  return {
    async many(batch) {
      await pool.query({ ...RECORD_MANY, values: columnsOf(batch) });
      return batch.map(() => undefined);
    },
    async one(settlement) {
      await pool.query({ ...RECORD_ONE, values: valuesOf(settlement) });
    },
  };
}

import type { Pool } from 'pg';
import type { Grant, GrantInput, GrantStore } from '../grants.js';
import { releasing } from './ledger-store.js';

/**
 * The grant, then the headroom it left (gateway_rate_headroom, once): the lateral join's wait
 * argument is read from the grant's rows, so the headroom is read after them.
 */
const GRANT = {
  name: 'grant',
  text: `WITH g AS MATERIALIZED (SELECT reservation_id FROM gateway_grant($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)),
      h AS (SELECT h.remaining, h.reset FROM (SELECT count(*) AS granted FROM g) AS n
        CROSS JOIN LATERAL gateway_rate_headroom($1, $2, $3, $11, 0 * n.granted) AS h)
    SELECT g.reservation_id, h.remaining, h.reset FROM g CROSS JOIN h`,
};

// The ids of one release are one kind's: one key's spend row, so no order to keep with other releases.
const RELEASE_MANY = { name: 'grant_release', text: releasing('id = ANY($1::bigint[])') };

/** gateway_grant (functions-grants.ts), one round trip per grant. */
export class PgGrantStore implements GrantStore {
  constructor(private readonly pool: Pool) {}

  async grant({ take, reserve, count, spare, leadMs }: GrantInput): Promise<Grant> {
    const keyId = take?.keyId ?? reserve?.keyId;
    const now = take?.now ?? reserve?.now;
    const values = [
      keyId,
      take?.limit ?? null,
      take?.windowMs ?? null,
      leadMs,
      reserve?.cycle ?? null,
      reserve?.nanos ?? 0,
      reserve?.upstreamNanos ?? 0,
      reserve?.ceilingNanos ?? null,
      reserve?.upstreamLimitNanos ?? null,
      reserve?.instance ?? null,
      now,
      reserve?.expiresAt ?? null,
      count,
      spare,
    ];
    const rows = (await this.pool.query<{ reservation_id: number | null; remaining: number | null; reset: number | null }>({ ...GRANT, values })).rows;
    return { ids: rows.map((row) => row.reservation_id), remaining: rows[0]?.remaining ?? 0, resetMs: rows[0]?.reset ?? 0 };
  }

  async release(reservationIds: readonly number[]): Promise<void> {
    if (reservationIds.length > 0) await this.pool.query({ ...RELEASE_MANY, values: [reservationIds] });
  }
}

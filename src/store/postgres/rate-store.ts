import type { Pool } from 'pg';
import type { RateStore, RateTake } from '../limits.js';

const TAKE = { name: 'rate_take', text: 'SELECT gateway_rate_take($1, $2, $3, $4) AS wait' };

/** The rate cap in PostgreSQL (limits.ts; migration 6): a take is one call of gateway_rate_take (functions.ts). */
export class PgRateStore implements RateStore {
  constructor(private readonly pool: Pool) {}

  async take(input: RateTake): Promise<number> {
    const values = [input.keyId, input.limit, input.windowMs, input.now];
    return (await this.pool.query<{ wait: number }>({ ...TAKE, values })).rows[0]?.wait ?? 0;
  }

  async sweep(before: number): Promise<number> {
    return (await this.pool.query('DELETE FROM rate_slots WHERE at <= $1', [before])).rowCount ?? 0;
  }
}

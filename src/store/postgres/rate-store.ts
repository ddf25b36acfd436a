import type { Pool } from 'pg';
import type { RateAnswer, RateStore, RateTake } from '../limits.js';
import { rateTakeWriter } from './admission-batch.js';
import { TickBatch } from './tick-batch.js';

/**
 * The rate cap in PostgreSQL (limits.ts; migrations 6 and 15): a take is one call of gateway_rate_take
 * (functions-rate.ts); the takes of one event-loop turn share one statement (admission-batch.ts).
 */
export class PgRateStore implements RateStore {
  private readonly takes: TickBatch<RateTake, RateAnswer>;

  constructor(private readonly pool: Pool) {
    this.takes = new TickBatch(rateTakeWriter(pool));
  }

  take(input: RateTake): Promise<RateAnswer> {
    return this.takes.run(input);
  }

  async sweep(before: number): Promise<number> {
    return (await this.pool.query('DELETE FROM rate_slots WHERE at <= $1', [before])).rowCount ?? 0;
  }
}

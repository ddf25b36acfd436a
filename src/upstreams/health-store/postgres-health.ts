import type { Pool } from 'pg';
import type { PostgresHandle } from '../../store/extension.js';
import type { DeploymentLimits, DeploymentRef, HealthPolicy } from '../health.js';
import { minuteOf, type CooldownEvent, type CooledRow, type HealthRow, type HealthStore, type MinuteRow } from './health-store.js';
import { COOLED_SQL, EVENTS_SQL, failSql, HEALTH_ROWS_SQL, LOG_COOLDOWN_COLUMNS, MINUTE_ROWS_SQL, PRUNE_SQL, takeSql, type FailedRow } from './sql.js';

// Typed: a parameter is compared with, or added to, a bigint column (1 and 2 are the family and the deployment).
const dialect = { p: (n: number): string => (n <= 2 ? `$${n}::text` : `$${n}::bigint`), greatest: 'GREATEST' } as const;
const plain = (n: number): string => `$${n}::bigint`;

/**
 * The failure counted and, when it started a cooldown, the cooldown logged: one statement. The
 * honoured Retry-After is sql.ts's honouredRetryAfter, in SQL.
 */
const FAIL = {
  name: 'upstream_health_fail',
  text: `WITH counted AS (${failSql(dialect)}),
    logged AS (INSERT INTO ${LOG_COOLDOWN_COLUMNS}
      SELECT family, deployment, $3::bigint, cooled_until, $5::bigint, CASE WHEN retry_until > $3::bigint + $6::bigint THEN retry_until - $3::bigint END
      FROM counted WHERE failures = 0)
    SELECT family, deployment, failures, retry_until, cooled_until FROM counted`,
};
const TAKE = { name: 'upstream_health_take', text: takeSql(dialect) };
const COOLED = { name: 'upstream_health_cooled', text: COOLED_SQL(plain) };
const PRUNE = (() => {
  const { minutes, windows, events } = PRUNE_SQL(plain);
  return `WITH minutes AS (${minutes}), windows AS (${windows}) ${events}`;
})();

/** Upstream health in PostgreSQL: each write one statement, atomic across the instances on the database. */
export class PgHealthStore implements HealthStore {
  private readonly pool: Pool;

  constructor({ pool }: PostgresHandle) {
    this.pool = pool;
  }

  async fail({ family, deployment }: DeploymentRef, policy: HealthPolicy, now: number, retryAfterMs: number | null): Promise<number | null> {
    const retryUntil = retryAfterMs === null ? 0 : now + retryAfterMs;
    const values = [family, deployment, now, policy.windowMs, policy.fails, policy.cooldownMs, retryUntil];
    const row = (await this.pool.query<FailedRow>({ ...FAIL, values })).rows[0];
    if (!row) throw new Error('the failure was not counted');
    return row.failures > 0 ? null : row.cooled_until;
  }

  async cooled(now: number): Promise<CooledRow[]> {
    return (await this.pool.query<CooledRow>({ ...COOLED, values: [now] })).rows;
  }

  async take({ family, deployment }: DeploymentRef, limits: DeploymentLimits, tokens: number, now: number): Promise<boolean> {
    const values = [family, deployment, minuteOf(now), tokens, limits.rpm ?? null, limits.tpm ?? null];
    return (await this.pool.query({ ...TAKE, values })).rowCount === 1;
  }

  async rows(now: number): Promise<{ health: HealthRow[]; minutes: MinuteRow[] }> {
    const [health, minutes] = await Promise.all([
      this.pool.query<HealthRow>(HEALTH_ROWS_SQL),
      this.pool.query<MinuteRow>(MINUTE_ROWS_SQL(plain), [minuteOf(now)]),
    ]);
    return { health: health.rows, minutes: minutes.rows };
  }

  async events(sinceMs: number, limit: number): Promise<CooldownEvent[]> {
    return (await this.pool.query<CooldownEvent>(EVENTS_SQL(plain), [sinceMs, limit])).rows;
  }

  async prune(now: number, windowMs: number, eventsBefore: number): Promise<void> {
    await this.pool.query(PRUNE, [minuteOf(now), now, windowMs, eventsBefore]);
  }
}

import type { SqliteHandle } from '../../store/extension.js';
import type { DeploymentLimits, DeploymentRef, HealthPolicy } from '../health.js';
import { minuteOf, type CooldownEvent, type CooledRow, type HealthRow, type HealthStore, type MinuteRow } from './health-store.js';
import {
  COOLED_SQL,
  EVENTS_SQL,
  failSql,
  HEALTH_ROWS_SQL,
  honouredRetryAfter,
  LOG_COOLDOWN_COLUMNS,
  MINUTE_ROWS_SQL,
  PRUNE_SQL,
  takeSql,
  type FailedRow,
} from './sql.js';

// better-sqlite3 binds repeated parameters by name only: parameter n is @pn.
const dialect = { p: (n: number): string => `@p${n}`, greatest: 'MAX' } as const;
const args = (...values: Array<string | number | null>): Record<string, string | number | null> =>
  Object.fromEntries(values.map((value, i) => [`p${i + 1}`, value]));

/**
 * Upstream health in SQLite. Writes go through the connection's group commit (`writes`): its
 * `BEGIN IMMEDIATE` orders them with every other process's on the file.
 */
export class SqliteHealthStore implements HealthStore {
  private readonly failStmt;
  private readonly logStmt;
  private readonly takeStmt;
  private readonly cooledStmt;
  private readonly healthStmt;
  private readonly minutesStmt;
  private readonly eventsStmt;
  private readonly pruneStmts;
  private readonly writes: SqliteHandle['writes'];

  constructor({ db, writes }: SqliteHandle) {
    this.writes = writes;
    this.failStmt = db.prepare(failSql(dialect));
    this.logStmt = db.prepare(`INSERT INTO ${LOG_COOLDOWN_COLUMNS} VALUES (?, ?, ?, ?, ?, ?)`);
    this.takeStmt = db.prepare(takeSql(dialect));
    this.cooledStmt = db.prepare(COOLED_SQL(dialect.p));
    this.healthStmt = db.prepare(HEALTH_ROWS_SQL);
    this.minutesStmt = db.prepare(MINUTE_ROWS_SQL(dialect.p));
    this.eventsStmt = db.prepare(EVENTS_SQL(dialect.p));
    const prune = PRUNE_SQL(dialect.p);
    this.pruneStmts = [db.prepare(prune.minutes), db.prepare(prune.windows), db.prepare(prune.events)];
  }

  fail({ family, deployment }: DeploymentRef, policy: HealthPolicy, now: number, retryAfterMs: number | null): Promise<number | null> {
    const retryUntil = retryAfterMs === null ? 0 : now + retryAfterMs;
    return this.writes.write(() => {
      const row = this.failStmt.get(args(family, deployment, now, policy.windowMs, policy.fails, policy.cooldownMs, retryUntil)) as FailedRow;
      if (row.failures > 0) return null;
      this.logStmt.run(family, deployment, now, row.cooled_until, policy.fails, honouredRetryAfter(row, now, policy.cooldownMs));
      return row.cooled_until;
    });
  }

  async cooled(now: number): Promise<CooledRow[]> {
    return this.cooledStmt.all(args(now)) as CooledRow[];
  }

  take({ family, deployment }: DeploymentRef, limits: DeploymentLimits, tokens: number, now: number): Promise<boolean> {
    const values = args(family, deployment, minuteOf(now), tokens, limits.rpm ?? null, limits.tpm ?? null);
    return this.writes.writeStatement(() => this.takeStmt.get(values) !== undefined);
  }

  async rows(now: number): Promise<{ health: HealthRow[]; minutes: MinuteRow[] }> {
    return { health: this.healthStmt.all() as HealthRow[], minutes: this.minutesStmt.all(args(minuteOf(now))) as MinuteRow[] };
  }

  async events(sinceMs: number, limit: number): Promise<CooldownEvent[]> {
    return this.eventsStmt.all(args(sinceMs, limit)) as CooldownEvent[];
  }

  prune(now: number, windowMs: number, eventsBefore: number): Promise<void> {
    const values = args(minuteOf(now), now, windowMs, eventsBefore);
    return this.writes.write(() => {
      for (const statement of this.pruneStmts) statement.run(values);
    });
  }
}

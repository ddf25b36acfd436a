/**
 * The statements both backends run, written once: `p(n)` spells parameter n in the backend's
 * syntax (typed on PostgreSQL), `greatest` its n-ary maximum.
 */
export interface Dialect {
  p(n: number): string;
  greatest: 'GREATEST' | 'MAX';
}

/**
 * A failure counted into its deployment's window, in one statement (parameters: family,
 * deployment, now, window ms, fails, cooldown ms, the end the failure's Retry-After asks for or
 * 0). A window is open while it has failures and is younger than the window; the `fails`-th
 * failure in it sets the cooldown (never shortened) and closes it (failures 0), so a returned
 * row with 0 failures is a cooldown this failure started.
 */
export function failSql({ p, greatest }: Dialect): string {
  const row = 'upstream_health';
  const open = `(${row}.failures > 0 AND ${row}.window_start + ${p(4)} > ${p(3)})`;
  const count = `(CASE WHEN ${open} THEN ${row}.failures + 1 ELSE 1 END)`;
  const retry = `(CASE WHEN ${open} THEN ${greatest}(${row}.retry_until, ${p(7)}) ELSE ${p(7)} END)`;
  const trips = `${count} >= ${p(5)}`;
  return `INSERT INTO upstream_health (family, deployment, window_start, failures, retry_until, cooled_until)
    VALUES (${p(1)}, ${p(2)}, ${p(3)}, CASE WHEN 1 >= ${p(5)} THEN 0 ELSE 1 END, ${p(7)},
      CASE WHEN 1 >= ${p(5)} THEN ${greatest}(${p(3)} + ${p(6)}, ${p(7)}) ELSE 0 END)
    ON CONFLICT (family, deployment) DO UPDATE SET
      window_start = CASE WHEN ${open} THEN ${row}.window_start ELSE ${p(3)} END,
      failures = CASE WHEN ${trips} THEN 0 ELSE ${count} END,
      retry_until = ${retry},
      cooled_until = CASE WHEN ${trips} THEN ${greatest}(${row}.cooled_until, ${p(3)} + ${p(6)}, ${retry}) ELSE ${row}.cooled_until END
    RETURNING family, deployment, failures, retry_until, cooled_until`;
}

/** What `failSql` returns. */
export interface FailedRow {
  family: string;
  deployment: string;
  failures: number;
  retry_until: number;
  cooled_until: number;
}

/**
 * One request and its tokens taken from a deployment's minute, in one statement, only if both
 * stay within the limits (parameters: family, deployment, minute, tokens, rpm or null, tpm or
 * null). The row is locked by the upsert, so concurrent takes from every instance queue on it
 * and each sees the one before; a take refused returns no row.
 */
export function takeSql({ p }: Dialect): string {
  const within = (requests: string, tokens: string): string => `(${p(5)} IS NULL OR ${requests} <= ${p(5)}) AND (${p(6)} IS NULL OR ${tokens} <= ${p(6)})`;
  return `INSERT INTO upstream_minutes (family, deployment, minute, requests, tokens)
    SELECT ${p(1)}, ${p(2)}, ${p(3)}, 1, ${p(4)} WHERE ${within('1', p(4))}
    ON CONFLICT (family, deployment, minute) DO UPDATE SET
      requests = upstream_minutes.requests + 1, tokens = upstream_minutes.tokens + excluded.tokens
    WHERE ${within('upstream_minutes.requests + 1', 'upstream_minutes.tokens + excluded.tokens')}
    RETURNING requests`;
}

/** The Retry-After a cooldown honoured: the part of it past the policy's cooldown, else null. */
export const honouredRetryAfter = (row: FailedRow, now: number, cooldownMs: number): number | null =>
  row.retry_until > now + cooldownMs ? row.retry_until - now : null;

export const COOLED_SQL = (p: Dialect['p']): string =>
  `SELECT family, deployment, cooled_until AS "cooledUntil" FROM upstream_health WHERE cooled_until > ${p(1)}`;

export const HEALTH_ROWS_SQL = 'SELECT family, deployment, window_start AS "windowStart", failures, cooled_until AS "cooledUntil" FROM upstream_health';

export const MINUTE_ROWS_SQL = (p: Dialect['p']): string => `SELECT family, deployment, requests, tokens FROM upstream_minutes WHERE minute = ${p(1)}`;

export const EVENTS_SQL = (p: Dialect['p']): string =>
  `SELECT family, deployment, started_at AS "startedAt", until, failures, retry_after_ms AS "retryAfterMs"
    FROM upstream_cooldowns WHERE started_at >= ${p(1)} ORDER BY started_at DESC, id DESC LIMIT ${p(2)}`;

export const LOG_COOLDOWN_COLUMNS = 'upstream_cooldowns (family, deployment, started_at, until, failures, retry_after_ms)';

/** The three prunes (parameters: the current minute, now, window ms, events before). */
export const PRUNE_SQL = (p: Dialect['p']): { minutes: string; windows: string; events: string } => ({
  minutes: `DELETE FROM upstream_minutes WHERE minute < ${p(1)}`,
  windows: `DELETE FROM upstream_health WHERE cooled_until <= ${p(2)} AND (failures = 0 OR window_start + ${p(3)} <= ${p(2)})`,
  events: `DELETE FROM upstream_cooldowns WHERE started_at < ${p(4)}`,
});

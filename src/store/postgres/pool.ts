import pg from 'pg';
import type { CustomTypesConfig, Pool, PoolClient } from 'pg';
import { parseExactInteger } from '../exact.js';
import type { MigrationReport } from '../migration.js';

/** Type OIDs whose text the pool parses itself (pg_type.oid). */
const INT8 = 20;
const NUMERIC = 1700;

/**
 * int8 (money in nano-dollars, epoch-ms times, COUNT(*)) and numeric (what SUM() of a bigint
 * gives; queries cast it back to bigint anyway) become JS numbers only when exact, else the
 * query fails loudly. pg's defaults are a string for both; never a float. Per pool, so the
 * `pg` module's global parsers stay untouched for anyone else in the process.
 */
type TypeParser = (oid: number, format?: 'text' | 'binary') => (value: string) => unknown;
const exactTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 || oid === NUMERIC ? parseExactInteger : (pg.types.getTypeParser as TypeParser)(oid, format)) as CustomTypesConfig['getTypeParser'],
};

export interface PoolOptions {
  /** Connections per gateway process (default 10). */
  max?: number;
  /**
   * How long a connection may take to open (or to be handed out by a full pool), and a query to
   * answer, before the call fails as unavailable (default 10 s). `query: false` lifts the query
   * bound (migrations may legitimately run longer).
   */
  timeouts?: { ms: number; query: boolean };
  /** An idle connection failed (the server restarted, the network dropped): the pool replaces it. */
  onBackgroundError?: (error: Error) => void;
  /** Told which migrations this open (or an extension's) applied (none when another instance had). */
  onMigrated?: MigrationReport;
}

export const DEFAULT_TIMEOUT_MS = 10_000;

export function createPool(url: string, options: PoolOptions = {}): Pool {
  const timeouts = options.timeouts ?? { ms: DEFAULT_TIMEOUT_MS, query: true };
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    // A database that cannot be reached, or stopped answering, fails a call (and /readyz)
    // within this, not never: a connection that timed out is discarded by the pool.
    connectionTimeoutMillis: timeouts.ms,
    ...(timeouts.query ? { query_timeout: timeouts.ms } : {}),
    application_name: 'model-gateway',
    // A peer that vanished without closing (network cut) is noticed instead of waited on forever.
    keepAlive: true,
    types: exactTypes,
  });
  // Without a listener, an idle connection's error would be an uncaught exception.
  pool.on('error', (error) => options.onBackgroundError?.(error));
  return pool;
}

/** Socket errors of a connection that could not be made or was lost. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
/**
 * Server errors (SQLSTATE) that mean "not now": connection exceptions (class 08), shutdown and
 * start-up (57P01–57P03), too many connections, a cancelled statement (a timeout), and a
 * read-only server (a standby after a fail-over).
 */
const SERVER_CODES = /^(08...|57P0[123]|53300|57014|25006)$/;
/** What pg and pg-pool say when a connection cannot be had, broke, or a query timed out. */
const CLIENT_MESSAGES =
  /timeout exceeded when trying to connect|timeout expired|Connection terminated|Query read timeout|is not queryable|after calling end on the pool/;

export function pgUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_CODES.test(code))) return true;
  return CLIENT_MESSAGES.test(error.message);
}

/**
 * Runs `work` in one transaction on one connection: committed if it resolves, rolled back if it
 * throws. A connection whose rollback failed is discarded, not returned to the pool.
 */
export async function inTransaction<T>(pool: Pool, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollbackError: unknown) => {
      broken = rollbackError as Error;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

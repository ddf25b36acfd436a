import pg from 'pg';
import type { CustomTypesConfig, Pool, PoolClient } from 'pg';
import { parseExactInteger } from '../exact.js';

/** Type OIDs whose text the pool parses itself (pg_type.oid). */
const INT8 = 20;
const NUMERIC = 1700;

/**
 * int8 (money in nano-dollars, epoch-ms times, COUNT(*)) and numeric (what SUM() of a bigint
 * gives; queries cast it back to bigint anyway) become JS numbers only when exact, else the
 * query fails loudly. pg's defaults are a string for both; never a float. Per pool, so the
 * `pg` module's global parsers stay untouched for anyone else in the process.
 */
const exactTypes: CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === INT8 || oid === NUMERIC ? parseExactInteger : pg.types.getTypeParser(oid, format)) as CustomTypesConfig['getTypeParser'],
};

export interface PoolOptions {
  /** Connections per gateway process (default 10). */
  max?: number;
  /** An idle connection failed (the server restarted, the network dropped): the pool replaces it. */
  onBackgroundError?: (error: Error) => void;
}

export function createPool(url: string, options: PoolOptions = {}): Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    // A database that cannot be reached fails a call (and /readyz) within this, not never.
    connectionTimeoutMillis: 10_000,
    application_name: 'model-gateway',
    // A peer that vanished without closing (network cut) is noticed instead of waited on forever.
    keepAlive: true,
    types: exactTypes,
  });
  // Without a listener, an idle connection's error would be an uncaught exception.
  pool.on('error', (error) => options.onBackgroundError?.(error));
  return pool;
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
    await client.query('ROLLBACK').catch((rollbackError: Error) => {
      broken = rollbackError;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

import type { Pool } from 'pg';
import type { Migration } from '../migration.js';
import { PG_MIGRATIONS } from './migrations.js';
import { inTransaction } from './pool.js';

/** The advisory lock every gateway instance takes to migrate (an arbitrary constant of this project). */
const MIGRATION_LOCK = 7_264_853_011;

/**
 * Applies the pending migrations in one transaction under a transaction-scoped advisory lock:
 * instances starting together on one database queue on the lock, and each one that gets it
 * reads `schema_migrations` afresh, so every migration is applied exactly once. DDL is
 * transactional in PostgreSQL, so a failing migration leaves nothing behind. Answers the
 * versions this call applied.
 */
export async function migrate(pool: Pool, migrations: readonly Migration[] = PG_MIGRATIONS): Promise<number[]> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    // Under the lock too: two concurrent CREATE TABLE IF NOT EXISTS can both fail to see the other's.
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`);
    const applied = await client.query<{ version: number }>('SELECT version FROM schema_migrations');
    const done = new Set(applied.rows.map((row) => row.version));
    const now: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(migration.version)) continue;
      now.push(migration.version);
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        Date.now(),
      ]);
    }
    return now;
  });
}

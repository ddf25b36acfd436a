import type { Pool, PoolClient } from 'pg';
import type { ExtensionMigration } from '../extension.js';
import type { Migration } from '../migration.js';
import { PG_MIGRATIONS } from './migrations.js';
import { inTransaction } from './pool.js';

/** The advisory lock every gateway instance takes to migrate (an arbitrary constant of this project). */
const MIGRATION_LOCK = 7_264_853_011;

/** How one track's migrations are recorded: the core's in `schema_migrations`, an extension's in `store_migrations`. */
interface TrackRecord {
  /** Creates the record's table if needed; answers the versions it holds. */
  applied(client: PoolClient): Promise<Set<number>>;
  record(client: PoolClient, migration: Migration): Promise<void>;
  /** The versions of `migrations` whose effect is already in the database (an extension's former core migrations). */
  present(client: PoolClient, migrations: readonly ExtensionMigration[]): Promise<Set<number>>;
}

/**
 * Applies the pending migrations of one track in one transaction under a transaction-scoped
 * advisory lock: instances starting together on one database queue on the lock, and each one
 * that gets it reads the record afresh, so every migration is applied exactly once. DDL is
 * transactional in PostgreSQL, so a failing migration leaves nothing behind. Answers the
 * versions this call applied.
 */
function applyTrack(pool: Pool, migrations: readonly ExtensionMigration[], track: TrackRecord): Promise<number[]> {
  return inTransaction(pool, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    // Under the lock too: two concurrent CREATE TABLE IF NOT EXISTS can both fail to see the other's.
    const done = await track.applied(client);
    const present = await track.present(client, migrations);
    const now: number[] = [];
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (done.has(migration.version)) continue;
      if (!present.has(migration.version)) {
        now.push(migration.version);
        await client.query(migration.sql);
      }
      await track.record(client, migration);
    }
    return now;
  });
}

/** Applies the core's pending migrations; answers the versions this call applied. */
export function migrate(pool: Pool, migrations: readonly Migration[] = PG_MIGRATIONS): Promise<number[]> {
  return applyTrack(pool, migrations, {
    async applied(client) {
      await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)`);
      return new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((row) => row.version));
    },
    async record(client, migration) {
      await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [migration.version, migration.name, Date.now()]);
    },
    present: async () => new Set(),
  });
}

/**
 * Applies an extension's pending migrations on its track (after the core's); answers the
 * versions this call applied. A migration that `wasCore`, found in `schema_migrations` under its
 * version and name, is recorded without being applied again.
 */
export function migrateTrack(pool: Pool, track: string, migrations: readonly ExtensionMigration[]): Promise<number[]> {
  return applyTrack(pool, migrations, {
    async applied(client) {
      await client.query(`CREATE TABLE IF NOT EXISTS store_migrations (
        track text NOT NULL, version integer NOT NULL, name text NOT NULL, applied_at bigint NOT NULL, PRIMARY KEY (track, version))`);
      const rows = (await client.query<{ version: number }>('SELECT version FROM store_migrations WHERE track = $1', [track])).rows;
      return new Set(rows.map((row) => row.version));
    },
    async record(client, migration) {
      await client.query('INSERT INTO store_migrations (track, version, name, applied_at) VALUES ($1, $2, $3, $4)', [
        track,
        migration.version,
        migration.name,
        Date.now(),
      ]);
    },
    async present(client, all) {
      const former = all.filter((migration) => migration.wasCore);
      if (former.length === 0) return new Set();
      const rows = (
        await client.query<{ version: number }>(
          'SELECT version FROM schema_migrations WHERE (version, name) IN (SELECT * FROM unnest($1::integer[], $2::text[]))',
          [former.map((m) => m.version), former.map((m) => m.name)],
        )
      ).rows;
      return new Set(rows.map((row) => row.version));
    },
  });
}

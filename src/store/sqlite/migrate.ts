import type Database from 'better-sqlite3';
import type { ExtensionMigration } from '../extension.js';
import type { Migration } from '../migration.js';
import { MIGRATIONS } from './migrations.js';

type Db = Database.Database;

/** How one track's migrations are recorded: the core's in `schema_migrations`, an extension's in `store_migrations`. */
interface TrackRecord {
  applied(version: number): boolean;
  record(migration: Migration): void;
  /** The migration's effect is already in the database (an extension's former core migration). */
  present(migration: ExtensionMigration): boolean;
}

/**
 * Applies `migrations` not yet recorded, in version order, each in its own IMMEDIATE
 * transaction (two processes starting on one file cannot both apply one); answers the versions
 * this call applied.
 */
function applyTrack(db: Db, migrations: readonly ExtensionMigration[], track: TrackRecord): number[] {
  const done: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    db.transaction(() => {
      if (track.applied(migration.version)) return;
      if (!track.present(migration)) {
        db.exec(migration.sql);
        done.push(migration.version);
      }
      track.record(migration);
    }).immediate();
  }
  return done;
}

/** Applies the core's pending migrations; answers the versions this call applied. */
export function migrate(db: Db, migrations: readonly Migration[] = MIGRATIONS): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
    version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)`);
  const applied = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?');
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  return applyTrack(db, migrations, {
    applied: (version) => applied.get(version) !== undefined,
    record: (migration) => record.run(migration.version, migration.name, Date.now()),
    present: () => false,
  });
}

/**
 * Applies an extension's pending migrations on its track (after the core's); answers the
 * versions this call applied. A migration that `wasCore`, found in `schema_migrations` under its
 * version and name, is recorded without being applied again.
 */
export function migrateTrack(db: Db, track: string, migrations: readonly ExtensionMigration[]): number[] {
  db.exec(`CREATE TABLE IF NOT EXISTS store_migrations (
    track TEXT NOT NULL, version INTEGER NOT NULL, name TEXT NOT NULL, applied_at INTEGER NOT NULL,
    PRIMARY KEY (track, version)) WITHOUT ROWID`);
  const applied = db.prepare('SELECT 1 FROM store_migrations WHERE track = ? AND version = ?');
  const record = db.prepare('INSERT INTO store_migrations (track, version, name, applied_at) VALUES (?, ?, ?, ?)');
  const inCore = db.prepare('SELECT 1 FROM schema_migrations WHERE version = ? AND name = ?');
  return applyTrack(db, migrations, {
    applied: (version) => applied.get(track, version) !== undefined,
    record: (migration) => record.run(track, migration.version, migration.name, Date.now()),
    present: (migration) => migration.wasCore === true && inCore.get(migration.version, migration.name) !== undefined,
  });
}

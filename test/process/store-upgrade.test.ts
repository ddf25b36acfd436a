import Database from 'better-sqlite3';
import type { Test } from 'tap';
import { RESPONSE_STATE } from '../../plugins/ingress-responses/store/state.js';
import { STATUS_STATE } from '../../plugins/status/store/state.js';
import { SIGNATURE_STATE } from '../../plugins/vendor-beta/store/state.js';
import type { ExtensionMigration, StoreExtension } from '../../src/store/extension.js';
import type { Migration } from '../../src/store/migration.js';
import { migrate as migratePostgres } from '../../src/store/postgres/migrate.js';
import { PG_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { createPool } from '../../src/store/postgres/pool.js';
import { migrate as migrateSqlite } from '../../src/store/sqlite/migrate.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import { configureConnection } from '../../src/store/sqlite/sqlite-store.js';
import { withPluginStates } from '../helpers/plugin-state.js';
import { contract, postgresDatabase, sqliteDatabase, type TestDatabase } from '../helpers/store-backends.js';

/**
 * Databases made before the plugins owned their state: every table was the core's, made by one
 * list of core migrations. Opened by this code, such a database keeps its rows, applies what it
 * lacks once, on the core's track or a plugin's, and ends with the schema a fresh database gets
 * — without creating a table it has ("table already exists").
 */

/** In the order withPluginStates opens them. */
const STATES: ReadonlyArray<StoreExtension<object>> = [SIGNATURE_STATE, STATUS_STATE, RESPONSE_STATE];

/**
 * The core's migrations as they shipped before the split: the core's list now with every plugin
 * migration that `wasCore` back in its place; where both have a version (3), the plugin's part
 * was the core's migration of its name, after the core's part.
 */
function shippedCore(core: readonly Migration[], tracks: ReadonlyArray<readonly ExtensionMigration[]>): Migration[] {
  const byVersion = new Map(core.map((m) => [m.version, { ...m }]));
  for (const migration of tracks.flat().filter((m) => m.wasCore)) {
    const own = byVersion.get(migration.version);
    byVersion.set(
      migration.version,
      own
        ? { version: own.version, name: migration.name, sql: `${own.sql}\n${migration.sql}` }
        : { version: migration.version, name: migration.name, sql: migration.sql },
    );
  }
  return [...byVersion.values()].sort((a, b) => a.version - b.version);
}

const SHIPPED = {
  sqlite: shippedCore(
    MIGRATIONS,
    STATES.map((s) => s.sqlite.migrations),
  ),
  postgres: shippedCore(
    PG_MIGRATIONS,
    STATES.map((s) => s.postgres.migrations),
  ),
};

/** A row in each moved table, in SQL both backends take. */
const ROWS = `
  INSERT INTO keys (id, name, status, created_at, updated_at) VALUES ('key_old', 'old', 'active', 0, 0);
  INSERT INTO responses (id, key_id, previous_id, created_at, items) VALUES ('resp_old', 'key_old', NULL, 1000, '{"input":[],"output":[]}');
  INSERT INTO thought_signatures (key_id, call_id, signature, expires_at) VALUES ('key_old', 'call_old', 'SIG', 9000);
  INSERT INTO status_rollups (period, start, model, requests, failures) VALUES ('minute', 60000, 'gamma-5.4', 7, 1);
  INSERT INTO status_rollups (period, start, model, requests, failures) VALUES ('hour', 0, 'gamma-5.4', 7, 1), ('hour', 86400000, 'gamma-5.4', 2, 0);`;

/** `db` as the code before the split left it after its migrations up to `upTo`, with ROWS in it. */
async function shippedDatabase(db: TestDatabase, upTo: number): Promise<void> {
  if (db.backend === 'sqlite') {
    const sqlite = new Database(db.path ?? '');
    configureConnection(sqlite);
    migrateSqlite(
      sqlite,
      SHIPPED.sqlite.filter((m) => m.version <= upTo),
    );
    sqlite.exec(ROWS);
    sqlite.close();
    return;
  }
  const pool = createPool(db.url ?? '');
  try {
    await migratePostgres(
      pool,
      SHIPPED.postgres.filter((m) => m.version <= upTo),
    );
    await pool.query(ROWS);
  } finally {
    await pool.end();
  }
}

/** The database's schema (tables, columns, indexes, functions), for comparing two databases of one backend. */
async function schema(db: TestDatabase): Promise<unknown[]> {
  if (db.backend === 'sqlite') {
    return db.query("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name <> 'sqlite_sequence' ORDER BY type, name");
  }
  return [
    ...(await db.query(`SELECT table_name, column_name, ordinal_position, data_type, column_default, is_nullable, is_generated, generation_expression
      FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`)),
    ...(await db.query("SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname")),
    ...(await db.query(
      "SELECT p.proname, p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace WHERE n.nspname = 'public' ORDER BY p.proname",
    )),
    ...(await db.query('SELECT tgname FROM pg_trigger WHERE NOT tgisinternal ORDER BY tgname')),
  ];
}

/** The schema of a fresh database of `backend`, opened by this code with the plugins' state. */
async function freshSchema(t: Test, backend: TestDatabase['backend']): Promise<unknown[]> {
  const fresh = backend === 'sqlite' ? await sqliteDatabase(t) : await postgresDatabase();
  const store = await withPluginStates(await fresh.open());
  t.teardown(() => store.close());
  return schema(fresh);
}

for (const upTo of [22, 15]) {
  contract(`a database the core migrated up to ${upTo} before the split upgrades without loss, to the schema of a fresh one`, async (t, db) => {
    await shippedDatabase(db, upTo);
    const applied: Array<{ track: string; versions: number[] }> = [];
    const store = await withPluginStates(await db.open({ onMigrated: (versions, track) => applied.push({ track, versions: [...versions] }) }));
    const lacked = [{ name: 'core', migrations: MIGRATIONS }, ...STATES.map((state) => ({ name: state.name, migrations: state.sqlite.migrations }))]
      .map(({ name, migrations }) => ({ track: name, versions: migrations.filter((m) => m.version > upTo).map((m) => m.version) }))
      .filter(({ versions }) => versions.length > 0);
    t.same(applied, lacked, 'each track applies only the migrations the database lacked');

    t.same(
      (await store.responses.thread('key_old', 'resp_old', 0)).map((r) => r.id),
      ['resp_old'],
      'stored responses kept',
    );
    t.same(
      await store.signatures.get('key_old', ['call_old'], 0),
      new Map([['call_old', { signature: 'SIG', deployment: null }]]),
      'thought signatures kept, issued by no known deployment',
    );
    t.same(await store.status.totals('minute', 0), [{ model: 'gamma-5.4', requests: 7, failures: 1 }], 'status rollups kept');
    t.same(
      await store.status.days(0),
      [
        { model: 'gamma-5.4', day: 0, requests: 7, failures: 1 },
        { model: 'gamma-5.4', day: 86_400_000, requests: 2, failures: 0 },
      ],
      'the daily history starts from the hour rollups',
    );

    const tracks = await db.query('SELECT track, version FROM store_migrations ORDER BY track, version');
    t.same(
      tracks,
      [RESPONSE_STATE, STATUS_STATE, SIGNATURE_STATE].flatMap((state) => state[db.backend].migrations.map(({ version }) => ({ track: state.name, version }))),
      'every plugin migration recorded on its track, once',
    );
    t.same(await schema(db), await freshSchema(t, db.backend), 'the same schema as a fresh database');
  });
}

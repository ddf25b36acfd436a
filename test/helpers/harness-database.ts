import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import type { Test } from 'tap';
import type { Store } from '../../src/store/store.js';
import { postgresDatabase, sqliteDatabase, type TestDatabase } from './store-backends.js';

/**
 * The database behind a test harness's gateway: a SQLite file in the harness's folder (the
 * default), or, in a test file that called `harnessOnPostgres()` first, a fresh database of
 * this test process's throwaway PostgreSQL server (started on first use, stopped at the end).
 * The end-to-end suites of keys, rotation, ceilings, usage, imports, status and the response cache run once as
 * they are and once more from test/process/postgres/, which switches the backend and imports them.
 */

let backend: 'sqlite' | 'postgres' = 'sqlite';

/** Every harness of this test process gets a PostgreSQL database. Call before the suite is imported. */
export function harnessOnPostgres(): void {
  backend = 'postgres';
}

export interface HarnessDatabase {
  /** The SQLite file (on PostgreSQL, a path nothing uses). */
  path: string;
  /** What selects it, as `npm start` reads it: GATEWAY_DB, and GATEWAY_DATABASE_URL on PostgreSQL. */
  env: Record<string, string>;
  /** Everything the database holds, as text: what a secret must not be found in. */
  text(): Promise<string>;
}

/** The text of every row of every table of a PostgreSQL database. */
async function postgresText(db: TestDatabase): Promise<string> {
  const dumps = await Promise.all((await db.tables()).map((name) => db.query(`SELECT row_to_json(t)::text AS row FROM ${pg.escapeIdentifier(name)} t`)));
  return dumps.flatMap((rows) => rows.map((row) => String(row['row']))).join('\n');
}

/** The SQLite file and its WAL, as bytes read as latin1. */
function sqliteText(path: string): string {
  const wal = `${path}-wal`;
  let text = readFileSync(path).toString('latin1');
  try {
    text += readFileSync(wal).toString('latin1');
  } catch {
    // No WAL (checkpointed and removed): the file is all there is.
  }
  return text;
}

/** The database for one harness whose files live in `dir`. */
export async function harnessDatabase(dir: string): Promise<HarnessDatabase> {
  const path = join(dir, 'gateway.db');
  if (backend === 'sqlite') return { path, env: { GATEWAY_DB: path }, text: async () => sqliteText(path) };
  const db = await postgresDatabase();
  return { path, env: { GATEWAY_DB: path, GATEWAY_DATABASE_URL: db.url as string }, text: () => postgresText(db) };
}

/** A store of its own on the harness backend (a fresh database), closed at the test's end: for tests of one store shared by several parts. */
export async function backendStore(test: Test): Promise<Store> {
  const db = backend === 'postgres' ? await postgresDatabase() : await sqliteDatabase(test);
  const store = await db.open();
  test.teardown(() => store.close());
  return store;
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import t, { type Test } from 'tap';
import { openStore, type DatabaseConfig, type OpenStoreOptions } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { startPostgres, type PostgresServer } from './postgres.js';

/**
 * The store contract's two backends. `contract(name, body)` runs `body` once on a fresh SQLite
 * file and once on a fresh PostgreSQL database (on this file's throwaway server, started on
 * first use), with the same assertions. Stores come from the production factory (openStore),
 * so the key-lookup memory is part of what is tested, and are closed at the subtest's end.
 */

export type BackendName = 'sqlite' | 'postgres';

/** The factory's options, and `timeoutMs` for the database's `timeout_ms`. */
export type TestStoreOptions = OpenStoreOptions & { timeoutMs?: number };

export interface TestDatabase {
  backend: BackendName;
  /** The `postgres://` URL of a PostgreSQL database; undefined on SQLite. */
  url?: string;
  /** The file of a SQLite database; undefined on PostgreSQL. */
  path?: string;
  /** Opens another store on this database (a second gateway instance sharing it). */
  open(options?: TestStoreOptions): Promise<Store>;
  /**
   * Makes the database unusable until the returned function is called: PostgreSQL stops (its
   * sessions cut off); SQLite's file stays write-locked by another connection.
   */
  outage(): Promise<() => Promise<void>>;
  /** A read-only query through a connection of its own, outside any store. */
  query(sql: string): Promise<Array<Record<string, unknown>>>;
  /** The database's tables, sorted. */
  tables(): Promise<string[]>;
}

let server: Promise<PostgresServer> | null = null;
let ownServer = false;

/** This file's PostgreSQL databases on a server of its own: for a file whose tests stop it (`outage`). Call before any. */
export function postgresOnOwnServer(): void {
  ownServer = true;
}

const database = (where: { path: string; url?: string }, options: TestStoreOptions = {}): DatabaseConfig =>
  options.timeoutMs === undefined ? where : { ...where, timeout_ms: options.timeoutMs };
const postgres = (): Promise<PostgresServer> => (server ??= startPostgres(t, { own: ownServer }));

/** A fresh SQLite file in a folder of its own, removed when `t` ends. */
export async function sqliteDatabase(t: Test): Promise<TestDatabase> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-contract-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'gateway.db');
  const query = async (sql: string): Promise<Array<Record<string, unknown>>> => {
    const db = new Database(path, { readonly: true });
    try {
      return db.prepare(sql).all() as Array<Record<string, unknown>>;
    } finally {
      db.close();
    }
  };
  return {
    backend: 'sqlite',
    path,
    open: (options) => openStore(database({ path }, options), options),
    async outage() {
      const holder = new Database(path);
      holder.exec('BEGIN EXCLUSIVE');
      return async () => {
        holder.exec('ROLLBACK');
        holder.close();
      };
    },
    query,
    tables: async () =>
      (await query("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'sqlite_sequence' ORDER BY name")).map((r) => String(r['name'])),
  };
}

/** A fresh database on the run's PostgreSQL server, or this test process's own (started on first use): helpers/postgres.ts. */
export async function postgresDatabase(): Promise<TestDatabase> {
  const pgServer = await postgres();
  const url = await pgServer.createDatabase();
  const query = async (sql: string): Promise<Array<Record<string, unknown>>> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<Record<string, unknown>>(sql)).rows;
    } finally {
      await client.end();
    }
  };
  return {
    backend: 'postgres',
    url,
    open: (options) => openStore(database({ path: 'unused.db', url }, options), options),
    outage: () => pgServer.outage(),
    query,
    tables: async () =>
      (await query("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY name")).map((r) => String(r['name'])),
  };
}

/** `body` on each backend, as subtests `<name> [sqlite]` and `<name> [postgres]`. */
export function contract(name: string, body: (t: Test, db: TestDatabase) => Promise<void>): void {
  for (const backend of ['sqlite', 'postgres'] as const) {
    t.test(`${name} [${backend}]`, async (t) => {
      const db = backend === 'sqlite' ? await sqliteDatabase(t) : await postgresDatabase();
      const opened: Store[] = [];
      // Every store the subtest opens is closed when it ends.
      const open = async (options?: TestStoreOptions): Promise<Store> => {
        const store = await db.open(options);
        opened.push(store);
        return store;
      };
      t.teardown(() => Promise.all(opened.map((store) => store.close())));
      await body(t, { ...db, open });
    });
  }
}

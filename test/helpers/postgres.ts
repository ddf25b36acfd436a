import pg from 'pg';
import { startPostgresServer, type PostgresServer } from '../../bench/lib/postgres-server.js';

/**
 * The tests' throwaway PostgreSQL server (bench/lib/postgres-server.ts), with durability off
 * (fsync, synchronous commit, full-page writes): what a test checks never depends on surviving
 * a power loss, and the server starts faster.
 *
 * Under the test runner (test/runner/run.ts) one server serves the whole run: its address is in
 * RUN_POSTGRES_ENV, and a test file gets fresh databases on it, dropped at the file's end. A file
 * run alone (`npx tap test/process/x.test.ts`) starts a server of its own, stopped at its end, and
 * so does a file that stops or freezes the server (`{ own: true }`): that would cut off the others.
 */

export type { PostgresServer };

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** The run-wide server's `postgresql://user@host:port` (no database), set by the runner. */
export const RUN_POSTGRES_ENV = 'GATEWAY_TEST_POSTGRES';

export const TEST_SETTINGS: Readonly<Record<string, string>> = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

/** What RUN_POSTGRES_ENV holds: the server's URL and its postmaster's pid, `<url>#<pid>`. */
export function runWideAddress(server: PostgresServer): string {
  return `${server.url}#${server.pid}`;
}

async function onAdminDatabase(base: string, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: `${base}/postgres` });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** Fresh databases of this process on the run-wide server, dropped (sessions and all) at `t`'s end. */
function onRunWideServer(t: Teardown, address: string): PostgresServer {
  const [base, pid] = address.split('#') as [string, string];
  const created: string[] = [];
  t.teardown(async () => {
    for (const name of created) await onAdminDatabase(base, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  });
  const notHere = (): never => {
    throw new Error('the run-wide PostgreSQL server cannot be stopped or frozen by one file: start one of its own with startPostgres(t, { own: true })');
  };
  return {
    pid: Number(pid),
    url: base,
    async createDatabase() {
      const name = `file_${process.pid}_${created.length + 1}`;
      created.push(name);
      // FILE_COPY: a plain copy of the template, faster than WAL-logging it.
      await onAdminDatabase(base, `CREATE DATABASE ${name} STRATEGY = FILE_COPY`);
      return `${base}/${name}`;
    },
    outage: notHere,
    freeze: notHere,
    stop: () => Promise.resolve(),
  };
}

export async function startPostgres(t: Teardown, options: { own?: boolean } = {}): Promise<PostgresServer> {
  const runWide = process.env[RUN_POSTGRES_ENV];
  if (runWide && !options.own) return onRunWideServer(t, runWide);
  const server = await startPostgresServer({ settings: TEST_SETTINGS });
  t.teardown(() => server.stop());
  return server;
}

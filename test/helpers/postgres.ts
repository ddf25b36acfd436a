import { startPostgresServer, type PostgresServer } from '../../bench/lib/postgres-server.js';

/**
 * The tests' throwaway PostgreSQL server (bench/lib/postgres-server.ts), one per test file and
 * stopped at its teardown, with durability off (fsync, synchronous commit, full-page writes):
 * what a test checks never depends on surviving a power loss, and a test file starts faster.
 */

export type { PostgresServer };

interface Teardown {
  teardown(fn: () => unknown): void;
}

const TEST_SETTINGS = { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' };

export async function startPostgres(t: Teardown): Promise<PostgresServer> {
  const server = await startPostgresServer({ settings: TEST_SETTINGS });
  t.teardown(() => server.stop());
  return server;
}

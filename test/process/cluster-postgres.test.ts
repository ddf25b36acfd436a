import t from 'tap';
import { brokenConfig, twoWorkers } from '../helpers/cluster-scenario.js';
import { startPostgres } from '../helpers/postgres.js';

/** GATEWAY_WORKERS on PostgreSQL: every worker with its own pool on one database (test/helpers/postgres.ts's throwaway server). */

t.setTimeout(240_000);

t.test('two workers on PostgreSQL: both serve, metrics summed, a killed worker replaced, SIGTERM drains both', async (t) => {
  const url = await (await startPostgres(t)).createDatabase();
  await twoWorkers(t, { GATEWAY_DATABASE_URL: url });
});

t.test('a broken PostgreSQL config with workers is one line and exit 1', (t) =>
  brokenConfig(t, { GATEWAY_DATABASE_URL: 'mysql://localhost/gateway' }, /^gateway: .*gateway\.yaml: \/database\/url must match pattern/),
);

import t from 'tap';
import { startPostgres } from '../helpers/postgres.js';
import { killCycles } from './helpers/kill-cycles.js';
import { postgresView } from './helpers/ledger-view.js';
import { scaled, SEED } from './helpers/scale.js';

t.test(`kill -9 cycles under mixed load, two processes on one PostgreSQL database (seed ${SEED})`, async (t) => {
  const url = await (await startPostgres(t)).createDatabase();
  // Two cycles in the short form: a throwaway PostgreSQL server takes its own seconds to start.
  await killCycles(t, { env: { GATEWAY_DATABASE_URL: url }, cycles: scaled(2, 10), open: () => postgresView(url) });
});

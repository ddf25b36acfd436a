import t from 'tap';
import { gatewayProcesses, sixtyCallsOnOneCeiling } from '../helpers/gateway-processes.js';
import { startPostgres } from '../helpers/postgres.js';

/**
 * `npm start` on PostgreSQL: two gateway processes given one GATEWAY_DATABASE_URL (the factory
 * in src/main.ts picks PostgreSQL) share keys and ceilings; 60 calls against a ceiling of 10,
 * exactly 10 admitted across both.
 */

// Two gateways compiled through the TypeScript loader take ~20 s on a busy 2-core machine; the
// runner's 60 s per file left too little margin (the SQLite twin, ceiling-processes, has the same cost).
t.setTimeout(180_000);

t.test('two gateway processes on one PostgreSQL database: 60 calls against a ceiling of 10, exactly 10 admitted', async (t) => {
  const url = await (await startPostgres(t)).createDatabase();
  const { db, start } = await gatewayProcesses(t, 0);
  const shared = { GATEWAY_DATABASE_URL: url };
  const [a, b] = [start({ ...shared, GATEWAY_INSTANCE_ID: 'gw-a' }), start({ ...shared, GATEWAY_INSTANCE_ID: 'gw-b' })];
  const origins = await Promise.all([a.ready, b.ready]);
  t.match(a.output(), /"database":"postgresql:\/\/postgres@127\.0\.0\.1:\d+\/\w+"/, 'the start-up log names the database');
  const { statuses, cycle } = await sixtyCallsOnOneCeiling(origins);
  t.equal(statuses.filter((s) => s === 200).length, 10, 'exactly 10 answered across both processes');
  t.equal(statuses.filter((s) => s === 402).length, 50);
  t.same([cycle.spent_usd, cycle.reserved_usd], ['0.0001', '0.00']);
  const ready = await fetch(`${origins[1]}/readyz`);
  t.equal(ready.status, 200, 'readiness checks PostgreSQL');
  t.notOk((await import('node:fs')).existsSync(db), 'no SQLite file was made');
});

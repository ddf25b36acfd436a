import t from 'tap';
import { admin, gatewayProcesses } from './helpers/gateway-processes.js';
import { chatBody } from './helpers/harness.js';
import { startPostgres } from './helpers/postgres.js';

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
  t.match(a.output(), /"database":"postgresql:\/\/postgres@127\.0\.0\.1:\d+\/test_1"/, 'the start-up log names the database');
  const { id, key } = (await admin(origins[0] as string, 'POST', '/keys', { name: 'shared', monthly_ceiling_usd: '0.0001' })) as { id: string; key: string };
  const statuses = await Promise.all(
    Array.from({ length: 60 }, async (_, i) => {
      const res = await fetch(`${origins[i % 2]}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: chatBody('gamma-5.4', { max_tokens: 4, messages: [{ role: 'user', content: 'go [[sim:delay_ms=100]]' }] }),
      });
      await res.arrayBuffer();
      return res.status;
    }),
  );
  t.equal(statuses.filter((s) => s === 200).length, 10, 'exactly 10 answered across both processes');
  t.equal(statuses.filter((s) => s === 402).length, 50);
  const usage = (await admin(origins[1] as string, 'GET', `/keys/${id}/usage`)) as { cycle: { spent_usd: string; reserved_usd: string } };
  t.same([usage.cycle.spent_usd, usage.cycle.reserved_usd], ['0.0001', '0.00']);
  const ready = await fetch(`${origins[1]}/readyz`);
  t.equal(ready.status, 200, 'readiness checks PostgreSQL');
  t.notOk((await import('node:fs')).existsSync(db), 'no SQLite file was made');
});

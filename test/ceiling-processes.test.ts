import t from 'tap';
import { admin, gatewayProcesses } from './helpers/gateway-processes.js';
import { chatBody } from './helpers/harness.js';

t.test('two gateway processes on one database: 60 calls against a ceiling of 10, exactly 10 admitted', async (t) => {
  const { start } = await gatewayProcesses(t, 0);
  // Each process holds its reservations under its own instance id (docs/money.md).
  const [a, b] = [start({ GATEWAY_INSTANCE_ID: 'gw-a' }), start({ GATEWAY_INSTANCE_ID: 'gw-b' })];
  const origins = await Promise.all([a.ready, b.ready]);
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
});

import t from 'tap';
import { gatewayProcesses, sixtyCallsOnOneCeiling } from '../helpers/gateway-processes.js';

t.test('two gateway processes on one database: 60 calls against a ceiling of 10, exactly 10 admitted', async (t) => {
  const { start } = await gatewayProcesses(t, 0);
  // Each process holds its reservations under its own instance id (docs/money.md).
  const [a, b] = [start({ GATEWAY_INSTANCE_ID: 'gw-a' }), start({ GATEWAY_INSTANCE_ID: 'gw-b' })];
  const origins = await Promise.all([a.ready, b.ready]);
  const { statuses, cycle } = await sixtyCallsOnOneCeiling(origins);
  t.equal(statuses.filter((s) => s === 200).length, 10, 'exactly 10 answered across both processes');
  t.equal(statuses.filter((s) => s === 402).length, 50);
  t.same([cycle.spent_usd, cycle.reserved_usd], ['0.0001', '0.00']);
});

import t from 'tap';
import { admin } from '../helpers/gateway-processes.js';
import { chat, instancesOnPostgres } from '../helpers/instances.js';

/**
 * Three gateway processes on one PostgreSQL database, each its own GATEWAY_INSTANCE_ID: a spend
 * ceiling holds across them. The processes are started once and reused by every trial, each
 * with a fresh key.
 */

// Three gateway processes and 4000 calls: about 45 s at a load average of 10 on 2 cores (measured);
// the margin is for busier moments of a shared machine.
t.setTimeout(90_000);
const boot = Date.now();
const instances = await instancesOnPostgres(t);
const origins = await Promise.all(['gw-a', 'gw-b', 'gw-c'].map((name) => instances.start(name).ready));
t.comment(`PostgreSQL and three gateways started in ${Date.now() - boot} ms`);
const originOf = (i: number): string => origins[i % origins.length] as string;
const count = (statuses: readonly number[], status: number): number => statuses.filter((s) => s === status).length;

t.test('a ceiling that fits exactly 10 calls: 200 at once spread over the three, exactly 10 admitted, 20 trials', async (t) => {
  const started = Date.now();
  for (let trial = 0; trial < 20; trial++) {
    // gamma-5.4 with max_tokens 4 reserves $0.00001; the upstream's delay keeps the admitted in flight.
    const { key } = (await admin(originOf(trial), 'POST', '/keys', { name: `trial ${trial}`, monthly_ceiling_usd: '0.0001' })) as { key: string };
    const statuses = await Promise.all(Array.from({ length: 200 }, (_, i) => chat(originOf(i), key, 'go [[sim:delay_ms=150]]').then((r) => r.status)));
    t.same([count(statuses, 200), count(statuses, 402)], [10, 190], `trial ${trial}: exactly 10 admitted, 190 refused`);
  }
  t.comment(`20 trials of 200 calls in ${Date.now() - started} ms`);
});

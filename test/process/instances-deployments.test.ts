import t from 'tap';
import { admin } from '../helpers/gateway-processes.js';
import { chat, instancesOnPostgres } from '../helpers/instances.js';
import { mockDeployment } from '../helpers/mock-deployment.js';

/**
 * Deployments across three gateway processes on one PostgreSQL database (docs/deployments.md):
 * a deployment's `rpm` is kept by all three together, and a deployment one instance cools down
 * gets no calls from the others within a second. The deployments are HTTP servers of the test's
 * own that count what reaches them.
 */

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const RPM = 24;
const DEPLOYMENT_KEY = 'deployment-credential';

const [limited, healthy, flaky] = await Promise.all([mockDeployment(t), mockDeployment(t), mockDeployment(t)]);
const instances = await instancesOnPostgres(t, {
  upstreams: {
    // gamma-5.4 has one deployment, with a vendor limit; gamma-5.2 two, one of which will fail.
    gamma: [
      { name: 'limited', base_url: limited.url, api_key_env: 'DEPLOYMENT_KEY', rpm: RPM, models: ['gamma-5.4'] },
      { name: 'healthy', base_url: healthy.url, api_key_env: 'DEPLOYMENT_KEY', models: ['gamma-5.2'] },
      { name: 'flaky', base_url: flaky.url, api_key_env: 'DEPLOYMENT_KEY', models: ['gamma-5.2'] },
    ],
  },
});
const env = { GAMMA_BASE_URL: '', GAMMA_API_KEY: '', DEPLOYMENT_KEY, GATEWAY_UPSTREAM_FAILS: '1' };
const gateways = ['gw-a', 'gw-b', 'gw-c'].map((name) => instances.start(name, env));
const origins = (await Promise.all(gateways.map((gateway) => gateway.ready))) as [string, string, string];
const created = (await admin(origins[0], 'POST', '/keys', { name: 'deployments', models: null })) as { key: string };
const key = created.key;

t.test("a deployment's rpm is never exceeded by three instances together", async (t) => {
  // Three times the limit, spread over the three instances, all at once.
  const results = await Promise.all(Array.from({ length: RPM * 3 }, (_, i) => chat(origins[i % 3] as string, key, `turn ${i}`)));
  const ok = results.filter((result) => result.status === 200).length;
  const refused = results.filter((result) => result.status === 429);
  t.equal(ok + refused.length, results.length, 'every call was answered or refused for headroom');
  t.equal(ok, limited.arrivals.length, 'every answer came from the deployment, and nothing refused reached it');
  const perMinute = new Map<number, number>();
  for (const at of limited.arrivals) perMinute.set(Math.floor(at / 60_000), (perMinute.get(Math.floor(at / 60_000)) ?? 0) + 1);
  t.ok(
    [...perMinute.values()].every((count) => count <= RPM),
    `at most ${RPM} calls reached it in any minute (${[...perMinute.values()].join(', ')})`,
  );
  t.ok(ok >= RPM, `the limit was used, not undercut (${ok} answered)`);
  t.match(refused[0]?.text, /rate|limit|capacity/i, 'a refusal says why');
});

t.test('a deployment one instance cools down gets no calls from any instance within a second', async (t) => {
  // Failing from now on (more failures queued than calls are made).
  flaky.failures.push(...Array.from({ length: 100 }, () => ({ status: 503 })));
  // Calls on A until one of them has met the failing deployment (answered by the healthy one at once).
  for (let i = 0; i < 40 && flaky.calls === 0; i++) {
    t.equal((await chat(origins[0], key, `probe ${i}`, { model: 'gamma-5.2' })).status, 200, 'answered despite the failing deployment');
  }
  t.equal(flaky.calls, 1, 'the failing deployment was met once');
  await sleep(1_000);
  const before = flaky.calls;
  const results = await Promise.all(Array.from({ length: 30 }, (_, i) => chat(origins[1 + (i % 2)] as string, key, `after ${i}`, { model: 'gamma-5.2' })));
  t.ok(
    results.every((result) => result.status === 200),
    'B and C answer every call',
  );
  t.equal(flaky.calls, before, 'none of them went to the cooled-down deployment');
  const listed = (await admin(origins[2], 'GET', '/deployments')) as { data?: unknown };
  t.match(JSON.stringify(listed), /"flaky"/, "C's admin list names it");
  t.notMatch(JSON.stringify(listed), new RegExp(DEPLOYMENT_KEY), 'and never its credential');
});

import t from 'tap';
import { deploymentTable, Deployments, type Deployment } from '../../src/upstreams/deployments.js';
import { DeploymentSelector, isExhausted, rendezvousOrder } from '../../src/upstreams/selection.js';
import type { DeploymentConfig } from '../../src/config/schema.js';
import { LocalUpstreamHealth } from '../helpers/local-upstream-health.js';
import { detachedCall, silentLog } from '../helpers/pipeline-parts.js';

/** The choice of a deployment (docs/deployments.md#selection), without a gateway. */

const listOf = (entries: Array<Partial<DeploymentConfig> & { name: string }>): Deployment[] =>
  deploymentTable({ gamma: entries.map((e) => ({ base_url: `http://${e.name}`, weight: 1, ...e })) }, ['gamma']).get('gamma') as Deployment[];

t.test('weighted rendezvous hashing: proportional to weight, the same everywhere, and a key moves only off a deployment that left', async (t) => {
  const list = listOf([{ name: 'a', weight: 2 }, { name: 'b' }, { name: 'c' }]);
  const KEYS = 4000;
  const homes = Array.from({ length: KEYS }, (_, i) => rendezvousOrder(`conversation-${i}`, list)[0]?.name);
  const share = (name: string): number => homes.filter((h) => h === name).length / KEYS;
  t.ok(Math.abs(share('a') - 0.5) < 0.03, `a wins about half the keys (${share('a')})`);
  t.ok(Math.abs(share('b') - 0.25) < 0.03, `b about a quarter (${share('b')})`);
  t.same(
    Array.from({ length: 50 }, (_, i) => rendezvousOrder(`conversation-${i}`, [...list].reverse())[0]?.name),
    homes.slice(0, 50),
    'the order of the list does not matter: every instance agrees',
  );
  const withoutB = list.filter((d) => d.name !== 'b');
  const moved = homes.filter((home, i) => home !== 'b' && rendezvousOrder(`conversation-${i}`, withoutB)[0]?.name !== home).length;
  t.equal(moved, 0, 'keys not on b stay where they were when b leaves');
});

t.test('one plain deployment is chosen synchronously; limits, models and cooldowns go the long way', async (t) => {
  const health = new LocalUpstreamHealth({ fails: 1, windowMs: 30_000, cooldownMs: 30_000 });
  const call = detachedCall('gamma-5.4');
  const single = new DeploymentSelector(new Deployments(deploymentTable({ gamma: { base_url: 'http://one' } }, ['gamma'])), health, silentLog);
  const picked = single.choose(call, 'gamma', 'gamma-5.4', 0);
  t.notOk(picked instanceof Promise, 'no promise for the hot path');
  t.match(picked, { name: 'default', baseUrl: 'http://one' });
  t.equal(single.choose(call, 'gamma', 'gamma-5.4', 0, new Set(['default'])), null, 'none left once it failed the call');

  const list = new Deployments(
    new Map([
      [
        'gamma',
        listOf([
          { name: 'x', rpm: 1 },
          { name: 'y', models: ['gamma-5.2'] },
        ]),
      ],
    ]),
  );
  const selector = new DeploymentSelector(list, health, silentLog);
  const now = Date.parse('2026-11-15T12:00:45Z');
  t.match(await selector.choose(call, 'gamma', 'gamma-5.4', now), { name: 'x' }, 'the only one serving gamma-5.4, with headroom');
  const out = await selector.choose(call, 'gamma', 'gamma-5.4', now);
  t.ok(out && isExhausted(out) && out.retryAfterMs === 15_000, 'out of headroom until the next minute');
  await health.recordFailure({ family: 'gamma', deployment: 'y' }, now, 90_000);
  const cooled = await selector.choose(call, 'gamma', 'gamma-5.2', now);
  t.ok(cooled && isExhausted(cooled) && cooled.retryAfterMs === 15_000, 'y cooled for 90 s, x free again in 15 s: the sooner');
});

t.test('a pinned deployment is preferred while it is healthy, then the others are used', async (t) => {
  const health = new LocalUpstreamHealth({ fails: 1, windowMs: 30_000, cooldownMs: 30_000 });
  const selector = new DeploymentSelector(new Deployments(new Map([['gamma', listOf([{ name: 'a', weight: 1000 }, { name: 'b' }])]])), health, silentLog);
  const call = detachedCall('gamma-5.4');
  call.pinnedDeployment = 'b';
  for (let i = 0; i < 5; i += 1) t.match(await selector.choose(call, 'gamma', 'gamma-5.4', 0), { name: 'b' }, 'pinned, whatever the weights');
  await health.recordFailure({ family: 'gamma', deployment: 'b' }, 0, null);
  t.match(await selector.choose(call, 'gamma', 'gamma-5.4', 1), { name: 'a' }, 'its deployment cooled down: another');
});

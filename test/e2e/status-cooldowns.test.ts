import t from 'tap';
import { COOLDOWNS_LISTED, type CooldownJson } from '../../plugins/status/cooldown-routes.js';
import { openUpstreamHealth } from '../../src/upstreams/health-store/index.js';
import { FakeClock, raw, startHarness } from '../helpers/harness.js';

/** The status plugin's operator view of upstream cooldowns: `GET /admin/v1/cooldowns`, behind the admin token. */

const HOUR = 3_600_000;

t.test('GET /admin/v1/cooldowns: the last 24 h of cooldowns, newest first, at most 100, for the admin token only', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const health = await openUpstreamHealth(h.store, { fails: 1, windowMs: 1_000, cooldownMs: 30_000 }, clock, { refreshMs: HOUR });
  t.teardown(() => health.close());
  const start = clock.now();
  await health.recordFailure({ family: 'alpha', deployment: 'old' }, start, null);
  clock.advance(2 * HOUR);
  await health.recordFailure({ family: 'gamma', deployment: 'east' }, clock.now(), 90_000);
  clock.advance(23 * HOUR);

  t.equal((await raw(h.origin, 'GET', '/admin/v1/cooldowns')).status, 401, 'no admin token: refused');
  const res = await h.admin('GET', '/cooldowns');
  t.equal(res.status, 200);
  t.same(
    await res.json(),
    {
      object: 'list',
      data: [
        {
          family: 'gamma',
          deployment: 'east',
          started_at: new Date(start + 2 * HOUR).toISOString(),
          until: new Date(start + 2 * HOUR + 90_000).toISOString(),
          reason: 'retry_after',
          failures: 1,
          retry_after_ms: 90_000,
        },
      ],
    },
    'the one of 25 h ago is not listed; the Retry-After that set the length is',
  );

  for (let i = 0; i <= COOLDOWNS_LISTED; i++) await health.recordFailure({ family: 'beta', deployment: `d${i % 3}` }, clock.now() + i, null);
  const listed = ((await (await h.admin('GET', '/cooldowns')).json()) as { data: CooldownJson[] }).data;
  t.equal(listed.length, COOLDOWNS_LISTED, 'at most 100');
  t.same(
    listed[0],
    {
      family: 'beta',
      deployment: `d${COOLDOWNS_LISTED % 3}`,
      started_at: new Date(clock.now() + COOLDOWNS_LISTED).toISOString(),
      until: new Date(clock.now() + COOLDOWNS_LISTED + 30_000).toISOString(),
      reason: 'failures',
      failures: 1,
      retry_after_ms: null,
    },
    'the newest first',
  );
});

import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import { systemClock } from '../../src/clock.js';
import type { Migration } from '../../src/store/migration.js';
import type { Store } from '../../src/store/store.js';
import type { HealthPolicy } from '../../src/upstreams/health.js';
import { openUpstreamHealth, StoreUpstreamHealth } from '../../src/upstreams/health-store/index.js';
import type { HealthStore } from '../../src/upstreams/health-store/health-store.js';
import { UPSTREAM_HEALTH_STATE } from '../../src/upstreams/health-store/state.js';
import { FakeClock } from '../helpers/harness.js';
import { contract } from '../helpers/store-backends.js';

/**
 * The store contract, part 14: the shared health of upstream deployments (src/upstreams/health-store/)
 * — failure windows, cooldowns, the per-process view, vendor rate headroom across instances —
 * on SQLite and PostgreSQL.
 */

const POLICY: HealthPolicy = { fails: 3, windowMs: 30_000, cooldownMs: 30_000 };
const MINUTE = 60_000;
/** The start of a minute, far from epoch 0 (a window or minute at 0 is not special). */
const T0 = 29_000_000 * MINUTE;

const gamma = (deployment: string) => ({ family: 'gamma', deployment });

async function opened(t: Test, store: Store, clock = new FakeClock(T0), policy = POLICY): Promise<StoreUpstreamHealth> {
  const health = await openUpstreamHealth(store, policy, clock, { refreshMs: 3_600_000 });
  t.teardown(() => health.close());
  return health;
}

contract('upstream health: failures counted in a window; the fails-th cools down, at least for the Retry-After, never shorter', async (t, db) => {
  const health = await opened(t, await db.open());
  const east = gamma('east');
  t.equal(await health.recordFailure(east, T0, null), null, 'one failure');
  t.equal(await health.recordFailure(east, T0 + 1_000, null), null, 'two');
  t.same(
    (await health.snapshot(T0 + 1_000)).map((row) => row.recentFailures),
    [2],
  );
  t.same(
    (await health.snapshot(T0 + 30_000)).map((row) => row.recentFailures),
    [0],
    'the window (from the first failure) has closed',
  );
  t.equal(await health.recordFailure(east, T0 + 30_000, null), null, 'the third after the window: one in a new window');
  t.equal(await health.recordFailure(east, T0 + 31_000, null), null);
  t.equal(await health.recordFailure(east, T0 + 32_000, null), T0 + 62_000, 'the third within it: cooled down for cooldown_s');
  t.same(health.cooledDown('gamma', T0 + 32_000), new Map([['east', T0 + 62_000]]), 'seen at once by this process');
  t.same(await health.snapshot(T0 + 32_000), [
    { family: 'gamma', deployment: 'east', recentFailures: 0, cooledUntil: T0 + 62_000, minuteRequests: 0, minuteTokens: 0 },
  ]);
  t.equal(await health.recordFailure(east, T0 + 33_000, null), null, 'the count starts again');

  const west = gamma('west');
  t.equal(await health.recordFailure(west, T0, 90_000), null, 'a Retry-After of 90 s on the first failure');
  await health.recordFailure(west, T0 + 100, null);
  t.equal(await health.recordFailure(west, T0 + 200, 5_000), T0 + 90_000, 'the cooldown lasts until the Retry-After ends, past the policy');
  for (const at of [T0 + 300, T0 + 400]) await health.recordFailure(west, at, null);
  t.equal(await health.recordFailure(west, T0 + 500, null), T0 + 90_000, 'three more failures never shorten it');
  t.same(health.cooledDown('gamma', T0 + 62_000), new Map([['west', T0 + 90_000]]), "east's cooldown has ended");
  t.same(health.cooledDown('alpha', T0), new Map(), 'another family: none');

  const eager = await opened(t, await db.open(), new FakeClock(T0), { fails: 1, windowMs: 1_000, cooldownMs: 5_000 });
  t.equal(await eager.recordFailure({ family: 'alpha', deployment: 'solo' }, T0, null), T0 + 5_000, 'fails: 1 cools down at the first failure');
  t.equal(await eager.recordFailure({ family: 'alpha', deployment: 'frac' }, T0, 10_000.5), T0 + 10_001, 'a Retry-After with a fraction of a ms, rounded up');

  t.same(
    await health.events(T0, 10),
    [
      { family: 'alpha', deployment: 'frac', startedAt: T0, until: T0 + 10_001, failures: 1, retryAfterMs: 10_001 },
      { family: 'alpha', deployment: 'solo', startedAt: T0, until: T0 + 5_000, failures: 1, retryAfterMs: null },
      { family: 'gamma', deployment: 'west', startedAt: T0 + 500, until: T0 + 90_000, failures: 3, retryAfterMs: null },
      { family: 'gamma', deployment: 'west', startedAt: T0 + 200, until: T0 + 90_000, failures: 3, retryAfterMs: 89_800 },
      { family: 'gamma', deployment: 'east', startedAt: T0 + 32_000, until: T0 + 62_000, failures: 3, retryAfterMs: null },
    ].sort((a, b) => b.startedAt - a.startedAt),
    'every cooldown logged, newest first, with the Retry-After it honoured',
  );
  t.equal((await health.events(T0, 2)).length, 2, 'at most the limit');
  t.same(
    (await health.events(T0 + 1_000, 10)).map((event) => event.startedAt),
    [T0 + 32_000],
    'only those since',
  );
});

contract("upstream health: another instance's cooldown reaches this process's view within a second", async (t, db) => {
  const [a, b] = [await openUpstreamHealth(await db.open(), POLICY, systemClock), await openUpstreamHealth(await db.open(), POLICY, systemClock)];
  t.teardown(() => [a, b].forEach((health) => health.close()));
  const started = Date.now();
  let until: number | null = null;
  for (let i = 0; i < POLICY.fails; i++) until = await a.recordFailure(gamma('east'), Date.now(), null);
  t.ok(until !== null && until >= started + POLICY.cooldownMs, 'cooled down by the third failure');
  const cooled = Date.now();
  let seen = b.cooledDown('gamma', Date.now());
  for (let i = 0; i < 40 && !seen.has('east'); i++) {
    await sleep(50);
    seen = b.cooledDown('gamma', Date.now());
  }
  t.equal(seen.get('east'), until, 'the other instance sees the cooldown, with its end');
  t.ok(Date.now() - cooled < 1_000, `within a second (${Date.now() - cooled} ms)`);
});

contract('upstream health: the view is read from the store only while a family has a choice of deployments', async (t, db) => {
  const inner = await (await db.open()).extend(UPSTREAM_HEALTH_STATE);
  let reads = 0;
  const counted: HealthStore = {
    fail: (...args) => inner.fail(...args),
    take: (...args) => inner.take(...args),
    rows: (now) => inner.rows(now),
    prune: (...args) => inner.prune(...args),
    events: (...args) => inner.events(...args),
    cooled: (now) => {
      reads++;
      return inner.cooled(now);
    },
  };
  // No timer of its own within the test (an hour): each refresh below stands for a tick.
  const clock = new FakeClock(T0);
  const health = new StoreUpstreamHealth(counted, POLICY, clock, undefined, 3_600_000);
  t.teardown(() => health.close());
  health.choosing(false);
  for (let i = 0; i < 10; i++) await health.refresh();
  t.equal(reads, 0, 'one deployment per family: a prune and ten ticks, no read');
  const b = await openUpstreamHealth(await db.open(), POLICY, clock);
  t.teardown(() => b.close());
  // A minute on: the next refresh prunes.
  clock.advance(MINUTE);
  for (let i = 0; i < POLICY.fails; i++) await b.recordFailure(gamma('east'), clock.now(), null);
  const pruning = health.refresh();
  health.choosing(true);
  await pruning;
  t.equal(reads, 1, 'a family with a choice (a reload) during a refresh that only pruned: read as soon as it ends, without a tick');
  t.ok(health.cooledDown('gamma', clock.now()).has('east'), "with another instance's cooldown in it");
  await health.refresh();
  t.equal(reads, 2, 'then at every tick');
});

contract('upstream health: rate headroom is never exceeded by instances taking at once; each minute starts afresh', async (t, db) => {
  const stores = [await db.open(), await db.open(), await db.open()];
  const healths = await Promise.all(stores.map((store) => opened(t, store)));
  const east = gamma('east');
  const taken = await Promise.all(healths.flatMap((health) => Array.from({ length: 60 }, () => health.take(east, { rpm: 50 }, 1, T0 + 1_000))));
  t.equal(taken.filter(Boolean).length, 50, '3 × 60 takes against rpm 50: exactly 50 admitted');
  const [one] = healths as [StoreUpstreamHealth];
  t.same(await one.snapshot(T0 + 59_999), [
    { family: 'gamma', deployment: 'east', recentFailures: 0, cooledUntil: null, minuteRequests: 50, minuteTokens: 50 },
  ]);

  const west = gamma('west');
  const byTokens = await Promise.all(healths.flatMap((health) => Array.from({ length: 20 }, () => health.take(west, { tpm: 250 }, 10, T0))));
  t.equal(byTokens.filter(Boolean).length, 25, '3 × 20 takes of 10 tokens against tpm 250: exactly 25');
  t.equal(await one.take(west, { tpm: 250, rpm: 1_000 }, 1, T0), false, 'a refused take takes nothing');
  t.equal(await one.take(west, { tpm: 250 }, 0, T0), true, 'zero tokens still fit');
  t.equal(await one.take(west, { tpm: 250 }, 0.5, T0), false, 'a fraction of a token counts as one');
  t.equal(await one.take(gamma('south'), { tpm: 3 }, 2.5, T0), true, 'an estimate with a fraction is taken whole');
  t.equal(await one.take(gamma('south'), { tpm: 3 }, -1, T0), true, 'no fewer than 0');
  t.equal(await one.take(gamma('south'), { tpm: 3 }, 0.1, T0), false, 'the first took 3');
  t.equal(await one.take(gamma('north'), { tpm: 100 }, 101, T0), false, 'a first take over the limit takes nothing');
  t.equal(await one.take(gamma('north'), { rpm: 1 }, 5_000, T0), true, 'a limit not given does not apply');
  t.equal(await one.take(gamma('north'), { rpm: 1 }, 1, T0), false);

  t.equal(await one.take(east, { rpm: 50 }, 1, T0 + MINUTE - 1), false, 'the last ms of the minute: still full');
  t.equal(await one.take(east, { rpm: 50 }, 1, T0 + MINUTE), true, 'the next minute starts afresh');
  t.same(
    (await one.snapshot(T0 + MINUTE)).map((row) => [row.deployment, row.minuteRequests]),
    [['east', 1]],
    "the snapshot shows the current minute's takes only",
  );
});

contract('upstream health: a refresh prunes old minutes, closed windows and day-old cooldown events, once a minute', async (t, db) => {
  const store = await db.open();
  const clock = new FakeClock(T0);
  const health = await opened(t, store, clock);
  for (let i = 0; i < 3; i++) await health.recordFailure(gamma('east'), T0, null);
  await health.recordFailure(gamma('west'), T0, null);
  await health.take(gamma('east'), { rpm: 10 }, 1, T0);
  await health.take(gamma('east'), { rpm: 10 }, 1, T0 + 2 * MINUTE);
  const count = async (table: string): Promise<number> => Number((await db.query(`SELECT COUNT(*) AS n FROM ${table}`))[0]?.['n']);
  t.same([await count('upstream_minutes'), await count('upstream_health'), await count('upstream_cooldowns')], [2, 2, 1]);

  clock.ms = T0 + 2 * MINUTE + 50_000;
  await health.refresh();
  t.same([await count('upstream_minutes'), await count('upstream_health')], [1, 0], 'minutes before the current one, and windows closed with no cooldown left');
  t.same(
    (await health.snapshot(clock.ms)).map((row) => [row.deployment, row.minuteRequests]),
    [['east', 1]],
  );
  await health.take(gamma('east'), { rpm: 10 }, 1, T0 + 3 * MINUTE);
  clock.ms = T0 + 3 * MINUTE + 40_000;
  await health.refresh();
  t.equal(await count('upstream_minutes'), 2, 'not again within a minute of the last prune');
  clock.ms = T0 + 24 * 60 * MINUTE + 1;
  await health.refresh();
  t.same([await count('upstream_minutes'), await count('upstream_cooldowns')], [0, 0], 'a day later the cooldown event is gone too');

  // The sub-store the status plugin reads is the one the health writes (one per store).
  t.equal(await store.extend(UPSTREAM_HEALTH_STATE), await store.extend(UPSTREAM_HEALTH_STATE));
});

contract('upstream health: its track, the same numbering on both backends, applied once by instances opening it at once', async (t, db) => {
  const numbering = (migrations: readonly Migration[]) => migrations.map(({ version, name }) => ({ version, name }));
  t.same(numbering(UPSTREAM_HEALTH_STATE.postgres.migrations), numbering(UPSTREAM_HEALTH_STATE.sqlite.migrations));
  const stores = await Promise.all([db.open(), db.open(), db.open()]);
  await Promise.all(stores.map((store) => store.extend(UPSTREAM_HEALTH_STATE)));
  t.same(
    await db.query("SELECT track, version, name FROM store_migrations WHERE track = 'upstream-health' ORDER BY version"),
    numbering(UPSTREAM_HEALTH_STATE.sqlite.migrations).map((m) => ({ track: 'upstream-health', ...m })),
  );
  const tables = await db.tables();
  t.ok(
    ['upstream_cooldowns', 'upstream_health', 'upstream_minutes'].every((table) => tables.includes(table)),
    'its tables',
  );
});

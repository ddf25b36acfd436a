import { setTimeout as sleep } from 'node:timers/promises';
import { StoreUnavailableError } from '../../src/store/unavailable.js';
import type { HealthPolicy } from '../../src/upstreams/health.js';
import { openUpstreamHealth } from '../../src/upstreams/health-store/index.js';
import { FakeClock } from '../helpers/harness.js';
import { contract, postgresOnOwnServer } from '../helpers/store-backends.js';

/**
 * The store contract, part 15: upstream health while the database cannot be reached (SQLite's
 * file write-locked by another connection, PostgreSQL stopped). Writes fail as
 * StoreUnavailableError within the timeout; the view keeps the cooldowns it had and its refresh
 * tells the outage once; all of it works again once the database is back.
 */

postgresOnOwnServer();

const TIMEOUT_MS = 400;
const REFRESH_MS = 50;
const POLICY: HealthPolicy = { fails: 1, windowMs: 30_000, cooldownMs: 3_600_000 };

async function failure(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

contract('upstream health: an unavailable store keeps the last view, fails writes as unavailable, is told once', async (t, db) => {
  const clock = new FakeClock();
  const told: Array<{ level: 'warn' | 'info'; message: string }> = [];
  const log = {
    warn: (_fields: object, message: string) => told.push({ level: 'warn', message }),
    info: (message: string) => told.push({ level: 'info', message }),
  };
  const health = await openUpstreamHealth(await db.open({ timeoutMs: TIMEOUT_MS }), POLICY, clock, { refreshMs: REFRESH_MS, log });
  t.teardown(() => health.close());
  const east = { family: 'gamma', deployment: 'east' };
  const until = await health.recordFailure(east, clock.now(), null);
  t.equal(until, clock.now() + POLICY.cooldownMs);

  const resume = await db.outage();
  try {
    for (const [name, call] of [
      ['recordFailure', () => health.recordFailure({ family: 'gamma', deployment: 'west' }, clock.now(), null)],
      ['take', () => health.take(east, { rpm: 5 }, 1, clock.now())],
    ] as const) {
      const error = await failure(call);
      t.ok(error instanceof StoreUnavailableError, `${name}: ${String(error)}`);
    }
    await sleep(3 * TIMEOUT_MS);
    t.same(health.cooledDown('gamma', clock.now()), new Map([['east', until]]), 'the view keeps the cooldown it had');
    if (db.backend === 'postgres') {
      t.same(
        told.map((entry) => entry.level),
        ['warn'],
        'the refresh failed for a while and told it once',
      );
    }
    // SQLite in WAL mode: another connection's write lock blocks writes only; the view's reads go on.
  } finally {
    await resume();
  }
  const back = Date.now();
  while (told.at(-1)?.level === 'warn' && Date.now() - back < 5_000) await sleep(REFRESH_MS);
  if (db.backend === 'postgres')
    t.same(
      told.map((entry) => entry.level),
      ['warn', 'info'],
      'and its return, once',
    );
  t.equal(await health.take(east, { rpm: 5 }, 1, clock.now()), true, 'takes work again');
  t.equal(await health.recordFailure({ family: 'gamma', deployment: 'west' }, clock.now(), null), clock.now() + POLICY.cooldownMs);
  t.same([...health.cooledDown('gamma', clock.now()).keys()].sort(), ['east', 'west']);
});

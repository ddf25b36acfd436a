/**
 * What admission costs on PostgreSQL, per call, on a throwaway loopback server (test/helpers/postgres.ts).
 * Run: `TS_NODE_TRANSPILE_ONLY=1 node --import @tapjs/typescript/import bench/admission-postgres.ts`
 *
 * One plain round trip for scale; a ceiling's reservation (gateway_reserve, its key holding
 * 1000 live leases); a reservation and its release; a rate-cap take; and a key with both (the
 * two plugins' round trips in a row).
 */
import { performance } from 'node:perf_hooks';
import { hashSecret } from '../src/keys/key-material.js';
import { openStore } from '../src/store/open-store.js';
import { startPostgres } from '../test/helpers/postgres.js';

const CALLS = 3000;
const WARM_UP = 200;

const percentile = (sorted: number[], p: number): string => (sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN).toFixed(3);

async function time(name: string, op: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < WARM_UP; i++) await op(-1 - i);
  const ms: number[] = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await op(i);
    ms.push(performance.now() - started);
  }
  ms.sort((a, b) => a - b);
  console.log(`${name}: p50 ${percentile(ms, 0.5)} ms, p99 ${percentile(ms, 0.99)} ms (${CALLS} calls one after another)`);
}

const teardowns: Array<() => unknown> = [];
const server = await startPostgres({ teardown: (fn) => teardowns.push(fn) });
const store = await openStore({ path: 'unused.db', url: await server.createDatabase() });
try {
  const keyId = async (name: string): Promise<string> =>
    (await store.keys.create({ name, models: null, monthlyCeilingNanos: 10 ** 15, expiresAt: null, valueHash: hashSecret(name), display: 'sl-…', now: 0 })).id;
  const now = Date.now();
  const reserve = (key: string, i: number) =>
    store.ledger.reserve({
      keyId: key,
      cycle: '2026-11',
      nanos: 1,
      upstreamNanos: 1,
      ceilingNanos: 10 ** 15,
      upstreamLimitNanos: null,
      instance: 'bench',
      now: now + i,
      expiresAt: now + i + 120_000,
    });
  const take = (key: string, i: number) => store.rates.take({ keyId: key, limit: 1_000_000, windowMs: 60_000, now: now + i });
  await time('one plain round trip (settings.get)', () => store.settings.get('none'));
  const crowded = await keyId('crowded');
  for (let i = 0; i < 1000; i++) await reserve(crowded, -10_000 - i);
  await time('ledger.reserve, 1000 live leases on the key', async (i) => {
    const held = await reserve(crowded, i);
    if (held.admitted) await store.ledger.release(held.reservation.id);
  });
  const plain = await keyId('plain');
  await time('ledger.reserve then release', async (i) => {
    const held = await reserve(plain, i);
    if (held.admitted) await store.ledger.release(held.reservation.id);
  });
  await time('rates.take', (i) => take(plain, i));
  const both = await keyId('both');
  await time('rates.take then ledger.reserve then release', async (i) => {
    await take(both, i);
    const held = await reserve(both, i);
    if (held.admitted) await store.ledger.release(held.reservation.id);
  });
} finally {
  await store.close();
  for (const teardown of teardowns.reverse()) await teardown();
}

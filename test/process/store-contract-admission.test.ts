import type { ReserveInput, Store } from '../../src/store/store.js';
import { contract } from '../helpers/store-backends.js';
import { figures, newKey } from '../helpers/store-fixtures.js';

/**
 * The store contract, part 13: a call's whole admission in one step (LedgerStore.reserveAfterTake)
 * — the rate cap's take, then the reservation only if the take admitted — on SQLite and
 * PostgreSQL, alone and from two stores at once.
 */

const CYCLE = '2026-11';
const WINDOW = 60_000;

const input = (keyId: string, nanos: number, now: number): ReserveInput => ({
  keyId,
  cycle: CYCLE,
  nanos,
  upstreamNanos: 0,
  ceilingNanos: 1000,
  upstreamLimitNanos: null,
  instance: 'gw-a',
  now,
  expiresAt: now + 120_000,
});

const admitter = (store: Store, keyId: string) => (limit: number, nanos: number, now: number) =>
  store.ledger.reserveAfterTake({ keyId, limit, windowMs: WINDOW, now }, input(keyId, nanos, now));

contract('admission step: a refused take reserves nothing; an admitted take counts even when the reservation is refused', async (t, db) => {
  const store = await db.open();
  const { key } = await newKey(store, { monthlyCeilingNanos: 1000 });
  const admit = admitter(store, key.id);

  const first = await admit(2, 600, 0);
  t.equal(first.waitMs, 0, 'taken');
  t.ok(first.result?.admitted, 'and reserved');
  const second = await admit(2, 600, 10);
  t.equal(second.waitMs, 0, 'taken: the cap of 2 has room');
  t.same(second.result, { admitted: false, refusedBy: ['ceiling'], ...figures(0, 600) }, 'the ceiling refuses it, with its figures');
  const third = await admit(2, 100, 20);
  t.same(third, { waitMs: 59_980, remaining: 0, resetMs: 59_980, result: null }, 'the refused reservation still counted for the cap: no room until 60 000');
  t.same(await store.ledger.cycleSpend(key.id, CYCLE, 0), figures(0, 600), 'the refused take reserved nothing');
  t.equal(
    (await store.rates.take({ keyId: key.id, limit: 2, windowMs: WINDOW, now: 30 })).waitMs,
    59_970,
    'nor moved the cap: the wait is still for the admission at 0',
  );
  const later = await admit(2, 100, 60_000);
  t.equal(later.waitMs, 0);
  t.ok(later.result?.admitted, 'a minute on, both admit again');
  t.same(await store.ledger.cycleSpend(key.id, CYCLE, 0), figures(0, 700));
});

contract('admission step: 2×100 concurrent calls from two stores, a cap of 30 and a ceiling that fits 10', async (t, db) => {
  const stores = [await db.open(), await db.open()] as const;
  const { key } = await newKey(stores[0], { monthlyCeilingNanos: 1000 });
  const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => admitter(stores[i % 2 === 0 ? 0 : 1], key.id)(30, 100, i % 5)));
  t.equal(answers.filter((a) => a.waitMs > 0 && a.result === null).length, 170, '170 refused by the cap, with nothing reserved');
  t.equal(answers.filter((a) => a.result?.admitted === false).length, 20, '20 taken, then refused by the ceiling');
  t.equal(answers.filter((a) => a.result?.admitted === true).length, 10, 'exactly 10 admitted');
  t.same(await stores[1].ledger.cycleSpend(key.id, CYCLE, 0), figures(0, 1000));
});

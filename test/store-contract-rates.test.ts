import type { Store } from '../src/store/store.js';
import { contract } from './helpers/store-backends.js';
import { newKey } from './helpers/store-fixtures.js';

/**
 * The store contract, part 8: the rate cap (RateStore, src/store/limits.ts) — an exact sliding
 * window shared by every instance — on SQLite and PostgreSQL.
 */

const WINDOW = 60_000;

const taker = (store: Store, keyId: string) => (limit: number, now: number) => store.rates.take({ keyId, limit, windowMs: WINDOW, now });

contract('rates: at most N in any 60 s, exact waits, a lowered or raised cap, keys apart', async (t, db) => {
  const store = await db.open();
  const [a, b] = [(await newKey(store)).key.id, (await newKey(store)).key.id];
  const take = taker(store, a);
  t.equal(await take(3, 0), 0);
  t.equal(await take(3, 10), 0);
  t.equal(await take(3, 20), 0);
  t.equal(await take(3, 30), 59_970, 'the oldest admission leaves the window at 60 000');
  t.equal(await take(3, 60_000), 0, 'then one more is admitted');
  t.equal(await take(3, 60_001), 9, 'the next waits for the admission at 10');
  t.equal(await taker(store, b)(3, 60_001), 0, 'keys are independent');
  // Lowering the cap keeps the most recent admissions that fit it (20 and 60 000).
  t.equal(await take(2, 60_002), 18, 'a lowered cap counts the last minute at once');
  t.equal(await take(2, 60_020), 0);
  t.equal(await take(2, 60_021), 59_979, 'two in the window: 60 000 and 60 020');
  // Raising it makes room at once, and counts what it knows.
  t.equal(await take(5, 60_030), 0);
  t.equal(await take(5, 60_031), 0);
  t.equal(await take(5, 60_032), 0);
  t.equal(await take(5, 60_033), 59_967, 'five in the window: 60 000, 60 020, 60 030, 60 031, 60 032');
});

contract('rates: storage follows the admissions, not the cap; sweeps forget what left the window', async (t, db) => {
  const store = await db.open();
  const keys = [(await newKey(store)).key.id, (await newKey(store)).key.id];
  for (const key of keys) for (let i = 0; i < 3; i++) t.equal(await taker(store, key)(1_000_000, i), 0);
  const rows = async (): Promise<number> => Number((await db.query('SELECT COUNT(*) AS n FROM rate_slots'))[0]?.['n']);
  t.equal(await rows(), 6, 'a cap of 1,000,000 with 3 admissions holds 3 slots');
  t.equal(await store.rates.sweep(0), 2, 'the admissions at 0 are forgotten');
  t.equal(await rows(), 4);
  // A swept slot is an empty one: nothing that would be refused is admitted after a sweep.
  const take = taker(store, keys[0] as string);
  t.equal(await take(2, 30_000), 60_001 - 30_000, 'admissions at 1 and 2 still fill a cap of 2 (until the one at 1 leaves)');
  t.equal(await store.rates.sweep(60_002), 4);
  t.equal(await take(2, 60_003), 0);
});

contract('rates: 3 rounds of 2×100 concurrent takes from two stores, a cap of 10: exactly 10 each minute', async (t, db) => {
  const stores = [await db.open(), await db.open()] as const;
  const { key } = await newKey(stores[0]);
  for (let round = 0; round < 3; round++) {
    const now = round * WINDOW;
    const waits = await Promise.all(Array.from({ length: 200 }, (_, i) => taker(stores[i % 2 === 0 ? 0 : 1], key.id)(10, now + (i % 5))));
    t.equal(waits.filter((w) => w === 0).length, 10, `round ${round}: exactly 10 admitted`);
    // Takes of one round carry times up to 4 ms apart and are decided in any order: a refusal
    // may wait up to those 4 ms more than the window.
    t.ok(waits.every((w) => w >= 0 && w <= WINDOW + 4), 'every refusal says when to come back');
  }
});

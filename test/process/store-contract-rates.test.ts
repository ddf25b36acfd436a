import type { Test } from 'tap';
import { GRANT_LIFE_MS, MOST_PER_GRANT } from '../../src/store/granted-admissions.js';
import type { RateAnswer, RateStore } from '../../src/store/limits.js';
import { PostgresStore } from '../../src/store/postgres/pg-store.js';
import type { Store } from '../../src/store/store.js';
import { contract } from '../helpers/store-backends.js';
import { newKey } from '../helpers/store-fixtures.js';

/**
 * The store contract, part 8: the rate cap (RateStore, src/store/limits.ts) — an exact sliding
 * window shared by every instance — on SQLite and PostgreSQL.
 */

const WINDOW = 60_000;

/** A key's takes, answering the take's whole answer (RateAnswer). */
const answerer = (store: Store, keyId: string) => (limit: number, now: number) => store.rates.take({ keyId, limit, windowMs: WINDOW, now });
/** A key's takes, answering only the wait. */
const taker = (store: Store, keyId: string) => async (limit: number, now: number) => (await answerer(store, keyId)(limit, now)).waitMs;

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
  t.same(
    await answerer(store, b)(3, 60_002),
    { waitMs: 0, remaining: 1, resetMs: 59_999 },
    'two in the window of 3: one more fits; the oldest leaves in 59 999 ms',
  );
  t.same(await answerer(store, b)(3, 60_003), { waitMs: 0, remaining: 0, resetMs: 59_998 }, 'the window full after it');
  t.same(await answerer(store, b)(3, 60_004), { waitMs: 59_997, remaining: 0, resetMs: 59_997 }, 'a refusal: none left, the reset its wait');
  // A lowered cap counts the newest admissions against it (20 and 60 000).
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
    t.ok(
      waits.every((w) => w >= 0 && w <= WINDOW + 4),
      'every refusal says when to come back',
    );
  }
});

/** An exact window's answer: 0 if fewer than `limit` of `admitted` (ascending times) are in it at `now`, else the wait until the limit-th newest leaves it. */
function exactWait(admitted: readonly number[], limit: number, now: number): number {
  const inWindow = admitted.filter((at) => at + WINDOW > now).length;
  return inWindow < limit ? 0 : (admitted[admitted.length - limit] as number) + WINDOW - now;
}

/** `count` takes under `limit` (or limits, in turn), one every `every` ms from `from`. */
const takes = (count: number, limits: number | number[], from: number, every = 100): Array<[number, number]> =>
  Array.from({ length: count }, (_, i) => [typeof limits === 'number' ? limits : (limits[i % limits.length] as number), from + i * every]);

/**
 * An exact window's headroom at `now` after a take (RateAnswer): the calls that fit before the
 * limit, and when the oldest of the newest `limit` admissions in the window leaves it (0: none in it).
 */
function exactHeadroom(admitted: readonly number[], limit: number, now: number): { remaining: number; resetMs: number } {
  const inWindow = admitted.filter((at) => at + WINDOW > now);
  const counted = inWindow.slice(-limit);
  return { remaining: Math.max(0, limit - inWindow.length), resetMs: counted.length === 0 ? 0 : (counted[0] as number) + WINDOW - now };
}

/** Whether a take's answer is the exact window's, or within what a store documents. */
type Judge = (answer: RateAnswer, exact: RateAnswer) => boolean;
const exactly: Judge = (answer, exact) => JSON.stringify(answer) === JSON.stringify(exact);

/** Sends the takes in order, each answer held to exactWait and exactHeadroom (or `judged` against them); the admitted takes. */
async function replay(
  t: Test,
  take: (limit: number, now: number) => Promise<RateAnswer>,
  sequence: Array<[number, number]>,
  judged: Judge = exactly,
): Promise<Array<{ limit: number; at: number }>> {
  const admitted: Array<{ limit: number; at: number }> = [];
  const wrong: string[] = [];
  for (const [limit, now] of sequence) {
    const times = admitted.map((a) => a.at);
    const waitMs = exactWait(times, limit, now);
    const answer = await take(limit, now);
    if (answer.waitMs === 0) times.push(now);
    const expected = { waitMs, ...exactHeadroom(times, limit, now) };
    if (!judged(answer, expected)) wrong.push(`limit ${limit} at ${now}: ${JSON.stringify(answer)}, not ${JSON.stringify(expected)}`);
    if (answer.waitMs === 0) admitted.push({ limit, at: now });
  }
  t.same(
    wrong.slice(0, 5),
    [],
    `all ${sequence.length} takes answered (wait and headroom) ${judged === exactly ? 'as an exact window would' : 'within their bounds'}`,
  );
  return admitted;
}

/** How many of the admissions are in the window that ends at `now` (one admitted at `now` included). */
const inWindowAt = (admitted: ReadonlyArray<{ at: number }>, now: number): number => admitted.filter((a) => a.at <= now && a.at + WINDOW > now).length;

contract('rates: a large cap over minutes, a jump ahead and a take dated back: every headroom exact', async (t, db) => {
  const store = await db.open();
  const [keyId, grantedKeyId] = [(await newKey(store)).key.id, (await newKey(store)).key.id];
  // Three minutes at 10 calls/s under a cap of 500: the window slides on by one admission a take
  // (where the last take's answer is found again from); then four quiet minutes, then a take
  // dated 30 s back (another process's clock), each held to the exact window.
  const sequence: Array<[number, number]> = [...takes(1_800, 500, 0), [500, 420_000], ...takes(30, 500, 420_100), [500, 390_000]];
  const windowOf = (rates: RateStore) => (limit: number, now: number) => rates.take({ keyId, limit, windowMs: WINDOW, now });
  if (db.backend === 'sqlite') {
    await replay(t, windowOf(store.rates), sequence);
    return;
  }
  // A store as opened grants admissions ahead on PostgreSQL (src/store/granted-admissions.ts):
  // the exact window is the rate store's own, without them.
  const own = await PostgresStore.open(db.url as string);
  t.teardown(() => own.close());
  await replay(t, windowOf(own.rates), sequence);
  // With them (docs/api-contract.md#rate-limit-headers): a granted take counts from its grant's
  // end, a grant's headroom is as old as the grant, and admissions granted and not used stay
  // counted in the window (docs/money.md: at most a grant and half the one before). So the store
  // never admits a call the exact window refuses, may refuse one only in that last stretch before
  // the cap, and its headroom is within that many calls and two grant lives of the exact one.
  const slack = { ms: 2 * GRANT_LIFE_MS, calls: MOST_PER_GRANT + MOST_PER_GRANT / 2 };
  const widest = { ms: 0, calls: 0 };
  const near: Judge = (answer, exact) => {
    if (answer.waitMs === 0) {
      if (exact.waitMs > 0) return false;
      widest.ms = Math.max(widest.ms, Math.abs(answer.resetMs - exact.resetMs));
    } else if (exact.waitMs === 0 && exact.remaining >= slack.calls) return false;
    widest.calls = Math.max(widest.calls, Math.abs(answer.remaining - exact.remaining));
    return widest.ms <= slack.ms && widest.calls <= slack.calls;
  };
  await replay(t, answerer(store, grantedKeyId), sequence, near);
  t.comment(`granted ahead: headroom at most ${widest.calls} calls and ${widest.ms} ms from the exact window's`);
});

contract('rates: a cap lowered then raised within the minute keeps every admission counted', async (t, db) => {
  const store = await db.open();
  const take = answerer(store, (await newKey(store)).key.id);
  const admitted = await replay(t, take, [...takes(20, 30, 0), [10, 2_100], ...takes(40, 50, 2_200)]);
  t.equal(admitted.length, 50, '20 under 30, none under 10, 30 more under 50: 50 in the window');
  t.equal((await take(10, 6_300)).waitMs, 4_200 + WINDOW - 6_300, 'lowered again: waits for the 10th newest (at 4 200)');
});

contract('rates: takes alternating limits 30 and 10 (instances before and after a key edit) admit at most 30 in any minute', async (t, db) => {
  const store = await db.open();
  const take = answerer(store, (await newKey(store)).key.id);
  // Two minutes of takes every 250 ms, the limit flipping at each.
  const admitted = await replay(t, take, takes(480, [30, 10], 0, 250));
  t.equal(inWindowAt(admitted, WINDOW - 1), 30, '30 in the first minute');
  t.equal(Math.max(...admitted.map((a) => inWindowAt(admitted, a.at))), 30, 'never more than 30 in any window');
  const under10 = admitted.filter((a) => a.limit === 10);
  t.ok(under10.length > 0 && under10.every((a) => inWindowAt(admitted, a.at) <= 10), 'a limit-10 take is admitted only with fewer than 10 in the window');
});

contract('rates: 2×100 concurrent takes from two stores under limits 30 and 10 in turn: exactly 30 admitted, at most 10 under 10', async (t, db) => {
  const stores = [await db.open(), await db.open()] as const;
  const { key } = await newKey(stores[0]);
  const limits = Array.from({ length: 200 }, (_, i) => (i % 4 < 2 ? 30 : 10));
  const waits = await Promise.all(limits.map((limit, i) => taker(stores[i % 2 === 0 ? 0 : 1], key.id)(limit, i % 5)));
  t.equal(waits.filter((w) => w === 0).length, 30, 'exactly 30 admitted');
  t.ok(waits.filter((w, i) => w === 0 && limits[i] === 10).length <= 10, 'at most 10 of them under the limit of 10');
});

contract('rates: a limit above every earlier one grows the ring and stays exact', async (t, db) => {
  const store = await db.open();
  const take = answerer(store, (await newKey(store)).key.id);
  const admitted = await replay(t, take, [
    ...takes(200, [30, 10], 0, 1_000), // 100 admitted: a ring of 30 wrapped three times over, under two limits
    ...takes(40, 50, 200_500, 10), // grown to 50
    ...takes(20, [10, 30], 201_000, 10), // lower limits: the ring stays at 50, and they count all 50
    ...takes(100, [80, 50], 260_000, 500), // grown again, while admissions leave the window
  ]);
  t.equal(admitted.filter((a) => a.at < 200_000).length, 100);
  t.equal(inWindowAt(admitted, 200_890), 50, '50 in the window once grown to 50');
  t.equal(admitted.filter((a) => a.at >= 201_000 && a.at < 260_000).length, 0, 'none under 10 or 30 with 50 in the window');
  t.ok(Math.max(...admitted.map((a) => inWindowAt(admitted, a.at))) <= 80, 'never more than the largest limit in a window');
});

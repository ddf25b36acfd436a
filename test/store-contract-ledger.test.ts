import type { ReserveInput, Store } from '../src/store/store.js';
import { contract } from './helpers/store-backends.js';
import { ledgerRow, newKey } from './helpers/store-fixtures.js';

/** The store contract, part 2: LedgerStore, and money kept exact — on SQLite and PostgreSQL. */

const reserver = (store: Store, keyId: string, ceilingNanos: number) => (nanos: number, extra: Partial<ReserveInput> = {}) =>
  store.ledger.reserve({ keyId, cycle: '2026-11', nanos, ceilingNanos, instance: 'default', now: 0, expiresAt: 120_000, ...extra });

contract('reserve: exact fit admitted, one nano-dollar over refused, cycles apart, a reached ceiling refuses even a free call', async (t, db) => {
  const store = await db.open();
  const { key } = await newKey(store, { monthlyCeilingNanos: 1000 });
  const reserve = reserver(store, key.id, 1000);
  t.match(await reserve(1001), { admitted: false, spent: 0, reserved: 0 }, 'more than the whole ceiling, on a fresh cycle');
  const a = await reserve(600);
  t.match(a, { admitted: true, reservation: { keyId: key.id, cycle: '2026-11', nanos: 600 } });
  t.same(await reserve(401), { admitted: false, spent: 0, reserved: 600 }, 'one nano-dollar too many');
  const b = await reserve(400, { instance: 'other' });
  t.ok(b.admitted, 'exactly the rest fits');
  if (!a.admitted || !b.admitted) return;
  t.not(a.reservation.id, b.reservation.id);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11'), { spent: 0, reserved: 1000 });
  t.same(await store.ledger.cycleSpend(key.id, '2026-12'), { spent: 0, reserved: 0 }, 'cycles are apart');
  t.ok((await reserve(1000, { cycle: '2026-12' })).admitted, 'the next cycle starts afresh');

  await store.ledger.record(ledgerRow(key.id, { chargedNanos: 1000 }), b.reservation.id);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11'), { spent: 1000, reserved: 600 }, 'row, spend and release in one go');
  await store.ledger.release(a.reservation.id);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11'), { spent: 1000, reserved: 0 });
  t.same(await reserve(0), { admitted: false, spent: 1000, reserved: 0 }, 'a reached ceiling refuses even a call that costs nothing');
  t.notOk((await reserver(store, key.id, 0)(0, { cycle: '2027-01' })).admitted, 'a ceiling of 0 is reached from the start');
});

contract('record without a reservation, release twice, reservations of another cycle, releaseInstance', async (t, db) => {
  const store = await db.open();
  const { key } = await newKey(store);
  const reserve = reserver(store, key.id, 10_000);
  await store.ledger.record(ledgerRow(key.id, { chargedNanos: 7 }), null);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11'), { spent: 7, reserved: 0 }, 'a key without a ceiling: the row alone');

  const held = await reserve(100);
  if (!held.admitted) throw new Error('refused');
  await store.ledger.release(held.reservation.id);
  await store.ledger.release(held.reservation.id);
  await store.ledger.release(987_654_321);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11'), { spent: 7, reserved: 0 }, 'released once, unknown ids ignored');

  // A call admitted in October whose row is written in the November cycle settles October's hold.
  const october = await reserve(300, { cycle: '2026-10' });
  if (!october.admitted) throw new Error('refused');
  await store.ledger.record(ledgerRow(key.id, { chargedNanos: 50 }), october.reservation.id);
  t.same(await store.ledger.cycleSpend(key.id, '2026-10'), { spent: 0, reserved: 0 });
  t.same(await store.ledger.cycleSpend(key.id, '2026-11'), { spent: 57, reserved: 0 });

  await reserve(10, { instance: 'gw-a' });
  await reserve(20, { instance: 'gw-a', cycle: '2026-12' });
  await reserve(40, { instance: 'gw-b' });
  t.equal(await store.ledger.releaseInstance('gw-a'), 2, 'every reservation of the instance, in every cycle');
  t.equal(await store.ledger.releaseInstance('gw-a'), 0);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11'), { spent: 57, reserved: 40 }, "other instances' holds stay");
  t.same(await store.ledger.cycleSpend(key.id, '2026-12'), { spent: 0, reserved: 0 });
});

contract('cycleSpend of every key, keyActivity per key, oldest key first', async (t, db) => {
  const store = await db.open();
  const { key: a } = await newKey(store, { now: 1 });
  const { key: b } = await newKey(store, { now: 2 });
  const { key: idle } = await newKey(store, { now: 3 });
  await store.ledger.record(ledgerRow(a.id, { chargedNanos: 100, admittedAt: 5_000 }), null);
  await store.ledger.record(ledgerRow(a.id, { chargedNanos: 1, admittedAt: 9_000 }), null);
  await store.ledger.record(ledgerRow(b.id, { chargedNanos: 20, admittedAt: 7_000 }), null);
  await store.ledger.record(ledgerRow(b.id, { chargedNanos: 3, cycle: '2026-10', admittedAt: 1_000 }), null);
  await reserver(store, b.id, 1_000)(30);
  t.same(await store.ledger.cycleSpend(null, '2026-11'), { spent: 121, reserved: 30 });
  t.same(await store.ledger.cycleSpend(null, '2026-09'), { spent: 0, reserved: 0 });
  t.same(await store.ledger.keyActivity('2026-11'), [
    { keyId: a.id, lastUsedAt: 9_000, spent: 101, reserved: 0 },
    { keyId: b.id, lastUsedAt: 7_000, spent: 20, reserved: 30 },
    { keyId: idle.id, lastUsedAt: null, spent: 0, reserved: 0 },
  ]);
});

contract('dailyUsage: per UTC day and model, oldest first, from `since` on, one key or all', async (t, db) => {
  const store = await db.open();
  const { key: a } = await newKey(store);
  const { key: b } = await newKey(store);
  const at = (iso: string): number => Date.parse(iso);
  const rows = [
    [a.id, '2026-11-14T23:59:59.999Z', 'gamma-5.4', 1, 2, 10, 20],
    [a.id, '2026-11-15T00:00:00.000Z', 'gamma-5.4', 3, 4, 30, 60],
    [a.id, '2026-11-15T12:00:00.000Z', 'gamma-5.4', 5, 6, 50, 100],
    [a.id, '2026-11-15T13:00:00.000Z', 'gamma-5.2', 7, 8, 70, 140],
    [b.id, '2026-11-15T14:00:00.000Z', 'gamma-5.4', 9, 10, 90, 180],
    [a.id, '2026-11-10T00:00:00.000Z', 'gamma-5.4', 100, 100, 100, 100],
  ] as const;
  for (const [keyId, time, model, promptTokens, completionTokens, chargedNanos, listNanos] of rows) {
    await store.ledger.record(ledgerRow(keyId, { admittedAt: at(time), model, promptTokens, completionTokens, chargedNanos, listNanos }), null);
  }
  const since = at('2026-11-14T00:00:00Z');
  t.same(await store.ledger.dailyUsage(a.id, since), [
    { day: '2026-11-14', model: 'gamma-5.4', requests: 1, promptTokens: 1, completionTokens: 2, chargedNanos: 10, listNanos: 20 },
    { day: '2026-11-15', model: 'gamma-5.2', requests: 1, promptTokens: 7, completionTokens: 8, chargedNanos: 70, listNanos: 140 },
    { day: '2026-11-15', model: 'gamma-5.4', requests: 2, promptTokens: 8, completionTokens: 10, chargedNanos: 80, listNanos: 160 },
  ]);
  t.same(await store.ledger.dailyUsage(null, since), [
    { day: '2026-11-14', model: 'gamma-5.4', requests: 1, promptTokens: 1, completionTokens: 2, chargedNanos: 10, listNanos: 20 },
    { day: '2026-11-15', model: 'gamma-5.2', requests: 1, promptTokens: 7, completionTokens: 8, chargedNanos: 70, listNanos: 140 },
    { day: '2026-11-15', model: 'gamma-5.4', requests: 3, promptTokens: 17, completionTokens: 20, chargedNanos: 170, listNanos: 340 },
  ]);
  t.same(await store.ledger.dailyUsage(b.id, at('2026-11-16T00:00:00Z')), []);
});

const TWO_52 = 2 ** 52;

contract('money is exact: sums up to 2^53 − 1 nano-dollars come back exactly, a sum beyond is refused loudly', async (t, db) => {
  const store = await db.open();
  const { key } = await newKey(store);
  await store.ledger.record(ledgerRow(key.id, { chargedNanos: TWO_52, listNanos: TWO_52 }), null);
  await store.ledger.record(ledgerRow(key.id, { chargedNanos: TWO_52 - 1, listNanos: TWO_52 - 1 }), null);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11'), { spent: Number.MAX_SAFE_INTEGER, reserved: 0 }, '2^53 − 1, exactly');
  t.match(await store.ledger.dailyUsage(key.id, 0), [{ chargedNanos: Number.MAX_SAFE_INTEGER, listNanos: Number.MAX_SAFE_INTEGER }]);

  // 2^53 + 1 has no double: a float path would give 2^53 back without a word.
  await store.ledger.record(ledgerRow(key.id, { chargedNanos: 2, listNanos: 2 }), null);
  const unsafe = /beyond what a JS number holds exactly/;
  await t.rejects(store.ledger.cycleSpend(key.id, '2026-11'), unsafe, 'the cycle spend');
  await t.rejects(store.ledger.cycleSpend(null, '2026-11'), unsafe, 'the spend of every key');
  await t.rejects(store.ledger.dailyUsage(key.id, 0), unsafe, 'the daily sums');
  await t.rejects(store.ledger.keyActivity('2026-11'), unsafe, 'the key table');
  await t.rejects(reserver(store, key.id, Number.MAX_SAFE_INTEGER)(1), unsafe, 'a refusal that would report it');
});

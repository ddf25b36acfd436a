import type { ReserveInput, Store } from '../../src/store/store.js';
import { contract } from '../helpers/store-backends.js';
import { figures, ledgerRow, newKey } from '../helpers/store-fixtures.js';

/** The store contract, part 2: LedgerStore, and money kept exact — on SQLite and PostgreSQL. */

const reserver =
  (store: Store, keyId: string, ceilingNanos: number | null) =>
  (nanos: number, extra: Partial<ReserveInput> = {}) =>
    store.ledger.reserve({
      keyId,
      cycle: '2026-11',
      nanos,
      upstreamNanos: 0,
      ceilingNanos,
      upstreamLimitNanos: null,
      instance: 'default',
      now: 0,
      expiresAt: 120_000,
      ...extra,
    });

contract('reserve: exact fit admitted, one nano-dollar over refused, cycles apart, a reached ceiling refuses even a free call', async (t, db) => {
  const store = await db.open();
  const { key } = await newKey(store, { monthlyCeilingNanos: 1000 });
  const reserve = reserver(store, key.id, 1000);
  t.match(await reserve(1001), { admitted: false, refusedBy: ['ceiling'], spent: 0, reserved: 0 }, 'more than the whole ceiling, on a fresh cycle');
  const a = await reserve(600);
  t.match(a, { admitted: true, reservation: { keyId: key.id, cycle: '2026-11', nanos: 600, upstreamNanos: 0 } });
  t.same(await reserve(401), { admitted: false, refusedBy: ['ceiling'], ...figures(0, 600) }, 'one nano-dollar too many');
  const b = await reserve(400, { instance: 'other' });
  t.ok(b.admitted, 'exactly the rest fits');
  if (!a.admitted || !b.admitted) return;
  t.not(a.reservation.id, b.reservation.id);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(0, 1000));
  t.same(await store.ledger.cycleSpend(key.id, '2026-12', 0), figures(0, 0), 'cycles are apart');
  t.ok((await reserve(1000, { cycle: '2026-12' })).admitted, 'the next cycle starts afresh');

  await store.ledger.record(ledgerRow(key.id, { chargedNanos: 1000, listNanos: 2000 }), b.reservation.id);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(1000, 600, 2000), 'row, both spends and release in one go');
  await store.ledger.release(a.reservation.id);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(1000, 0, 2000));
  t.same(await reserve(0), { admitted: false, refusedBy: ['ceiling'], ...figures(1000, 0, 2000) }, 'a reached ceiling refuses even a call that costs nothing');
  t.notOk((await reserver(store, key.id, 0)(0, { cycle: '2027-01' })).admitted, 'a ceiling of 0 is reached from the start');
});

contract('the upstream limit: both amounts held, each set limit decides, a refusal names what failed, the row settles both spends', async (t, db) => {
  const store = await db.open();
  const { key } = await newKey(store, { monthlyCeilingNanos: 1000, monthlyUpstreamLimitNanos: 5000 });
  t.equal(key.monthlyUpstreamLimitNanos, 5000, 'the key keeps its upstream limit');
  const reserve = (nanos: number, upstreamNanos: number, extra: Partial<ReserveInput> = {}) =>
    reserver(store, key.id, 1000)(nanos, { upstreamNanos, upstreamLimitNanos: 5000, ...extra });
  const a = await reserve(100, 3000);
  t.match(a, { admitted: true, reservation: { keyId: key.id, nanos: 100, upstreamNanos: 3000 } });
  t.same(await reserve(100, 2001), { admitted: false, refusedBy: ['upstream'], ...figures(0, 100, 0, 3000) }, 'one nano-dollar over the upstream limit');
  t.same(await reserve(901, 2001), { admitted: false, refusedBy: ['ceiling', 'upstream'], ...figures(0, 100, 0, 3000) }, 'both over: both named');
  t.same(await reserve(901, 0), { admitted: false, refusedBy: ['ceiling'], ...figures(0, 100, 0, 3000) }, 'the ceiling alone');
  const b = await reserve(900, 2000);
  t.ok(b.admitted, 'exactly both rests fit');
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(0, 1000, 0, 5000));
  if (!a.admitted || !b.admitted) return;

  await store.ledger.record(ledgerRow(key.id, { chargedNanos: 80, listNanos: 2500 }), a.reservation.id);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(80, 900, 2500, 2000), 'settled: both spends added, both holds dropped');
  await store.ledger.release(b.reservation.id);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(80, 0, 2500, 0), 'released: both holds dropped');
  await store.ledger.record(ledgerRow(key.id, { chargedNanos: 0, listNanos: 2500 }), null);
  t.same(await reserve(0, 0), { admitted: false, refusedBy: ['upstream'], ...figures(80, 0, 5000, 0) }, 'a reached upstream limit refuses even a free call');

  // A limit that is not set is not checked, whatever it would hold.
  t.ok((await reserve(10 ** 9, 5000, { cycle: '2026-12', ceilingNanos: null })).admitted, 'no ceiling: only the upstream limit decides');
  t.ok((await reserve(1000, 10 ** 9, { cycle: '2027-01', upstreamLimitNanos: null })).admitted, 'no upstream limit: only the ceiling decides');
  t.same(await store.ledger.cycleSpend(key.id, '2026-12', 0), figures(0, 10 ** 9, 0, 5000));
  t.same(await store.ledger.cycleSpend(key.id, '2027-01', 0), figures(0, 1000, 0, 10 ** 9));
});

contract('record without a reservation, release twice, reservations of another cycle, releaseInstance', async (t, db) => {
  const store = await db.open();
  const { key } = await newKey(store);
  const reserve = reserver(store, key.id, 10_000);
  await store.ledger.record(ledgerRow(key.id, { chargedNanos: 7, listNanos: 14 }), null);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(7, 0, 14), 'a key without a ceiling: the row alone');

  const held = await reserve(100);
  if (!held.admitted) throw new Error('refused');
  await store.ledger.release(held.reservation.id);
  await store.ledger.release(held.reservation.id);
  await store.ledger.release(987_654_321);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(7, 0, 14), 'released once, unknown ids ignored');

  // A call admitted in October whose row is written in the November cycle settles October's hold.
  const october = await reserve(300, { cycle: '2026-10', upstreamNanos: 600 });
  if (!october.admitted) throw new Error('refused');
  t.same(await store.ledger.cycleSpend(key.id, '2026-10', 0), figures(0, 300, 0, 600));
  await store.ledger.record(ledgerRow(key.id, { chargedNanos: 50, listNanos: 100 }), october.reservation.id);
  t.same(await store.ledger.cycleSpend(key.id, '2026-10', 0), figures(0, 0));
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(57, 0, 114));

  await reserve(10, { instance: 'gw-a' });
  await reserve(20, { instance: 'gw-a', cycle: '2026-12' });
  await reserve(40, { instance: 'gw-b' });
  t.equal(await store.ledger.releaseInstance('gw-a'), 2, 'every reservation of the instance, in every cycle');
  t.equal(await store.ledger.releaseInstance('gw-a'), 0);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(57, 40, 114), "other instances' holds stay");
  t.same(await store.ledger.cycleSpend(key.id, '2026-12', 0), figures(0, 0));
  // Migration 19: the release at start scans the few reservations in flight; no admission writes an index by instance.
  const indexes =
    db.backend === 'sqlite'
      ? await db.query("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'reservations' AND sql IS NOT NULL ORDER BY name")
      : await db.query("SELECT indexname AS name FROM pg_indexes WHERE tablename = 'reservations' AND indexname <> 'reservations_pkey' ORDER BY name");
  t.same(
    indexes.map((row) => row['name']),
    ['reservations_by_expiry', 'reservations_by_key_expiry'],
    'reservations are indexed by expiry and by key, not by instance',
  );
});

contract('cycleSpend of every key, keyActivity per key, oldest key first', async (t, db) => {
  const store = await db.open();
  const { key: a } = await newKey(store, { now: 1 });
  const { key: b } = await newKey(store, { now: 2 });
  const { key: idle } = await newKey(store, { now: 3 });
  await store.ledger.record(ledgerRow(a.id, { chargedNanos: 100, listNanos: 200, admittedAt: 5_000 }), null);
  await store.ledger.record(ledgerRow(a.id, { chargedNanos: 1, listNanos: 3, admittedAt: 9_000 }), null);
  await store.ledger.record(ledgerRow(b.id, { chargedNanos: 20, listNanos: 50, admittedAt: 7_000 }), null);
  await store.ledger.record(ledgerRow(b.id, { chargedNanos: 3, listNanos: 6, cycle: '2026-10', admittedAt: 1_000 }), null);
  await reserver(store, b.id, 1_000)(30, { upstreamNanos: 70 });
  t.same(await store.ledger.cycleSpend(null, '2026-11', 0), figures(121, 30, 253, 70));
  t.same(await store.ledger.cycleSpend(null, '2026-09', 0), figures(0, 0));
  t.same(await store.ledger.keyActivity('2026-11', 0), [
    { keyId: a.id, lastUsedAt: 9_000, ...figures(101, 0, 203) },
    { keyId: b.id, lastUsedAt: 7_000, ...figures(20, 30, 50, 70) },
    { keyId: idle.id, lastUsedAt: null, ...figures(0, 0) },
  ]);
});

contract('dailyUsage: per UTC day, model and endpoint, oldest first, from `since` on, one key or all', async (t, db) => {
  const store = await db.open();
  const { key: a } = await newKey(store);
  const { key: b } = await newKey(store);
  const at = (iso: string): number => Date.parse(iso);
  const rows = [
    [a.id, '2026-11-14T23:59:59.999Z', 'gamma-5.4', 'chat.completions', 1, 2, 10, 20],
    [a.id, '2026-11-15T00:00:00.000Z', 'gamma-5.4', 'chat.completions', 3, 4, 30, 60],
    [a.id, '2026-11-15T12:00:00.000Z', 'gamma-5.4', 'responses', 5, 6, 50, 100],
    [a.id, '2026-11-15T13:00:00.000Z', 'gamma-5.2', 'chat.completions', 7, 8, 70, 140],
    [b.id, '2026-11-15T14:00:00.000Z', 'gamma-5.4', 'chat.completions', 9, 10, 90, 180],
    [a.id, '2026-11-10T00:00:00.000Z', 'gamma-5.4', 'chat.completions', 100, 100, 100, 100],
  ] as const;
  for (const [keyId, time, model, endpoint, promptTokens, completionTokens, chargedNanos, listNanos] of rows) {
    await store.ledger.record(ledgerRow(keyId, { admittedAt: at(time), model, endpoint, promptTokens, completionTokens, chargedNanos, listNanos }), null);
  }
  // An answer from the response cache: a row marked cached, at no cost, counted in cachedRequests.
  await store.ledger.record(
    ledgerRow(b.id, {
      admittedAt: at('2026-11-15T15:00:00.000Z'),
      promptTokens: 1,
      completionTokens: 1,
      chargedNanos: 0,
      listNanos: 0,
      attempts: 0,
      cached: true,
    }),
    null,
  );
  const since = at('2026-11-14T00:00:00Z');
  const chat = 'chat.completions';
  t.same(await store.ledger.dailyUsage(a.id, since), [
    {
      day: '2026-11-14',
      model: 'gamma-5.4',
      endpoint: chat,
      requests: 1,
      promptTokens: 1,
      completionTokens: 2,
      chargedNanos: 10,
      listNanos: 20,
      cachedRequests: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    },
    {
      day: '2026-11-15',
      model: 'gamma-5.2',
      endpoint: chat,
      requests: 1,
      promptTokens: 7,
      completionTokens: 8,
      chargedNanos: 70,
      listNanos: 140,
      cachedRequests: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    },
    {
      day: '2026-11-15',
      model: 'gamma-5.4',
      endpoint: chat,
      requests: 1,
      promptTokens: 3,
      completionTokens: 4,
      chargedNanos: 30,
      listNanos: 60,
      cachedRequests: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    },
    {
      day: '2026-11-15',
      model: 'gamma-5.4',
      endpoint: 'responses',
      requests: 1,
      promptTokens: 5,
      completionTokens: 6,
      chargedNanos: 50,
      listNanos: 100,
      cachedRequests: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    },
  ]);
  t.same(await store.ledger.dailyUsage(null, since), [
    {
      day: '2026-11-14',
      model: 'gamma-5.4',
      endpoint: chat,
      requests: 1,
      promptTokens: 1,
      completionTokens: 2,
      chargedNanos: 10,
      listNanos: 20,
      cachedRequests: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    },
    {
      day: '2026-11-15',
      model: 'gamma-5.2',
      endpoint: chat,
      requests: 1,
      promptTokens: 7,
      completionTokens: 8,
      chargedNanos: 70,
      listNanos: 140,
      cachedRequests: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    },
    {
      day: '2026-11-15',
      model: 'gamma-5.4',
      endpoint: chat,
      requests: 3,
      promptTokens: 13,
      completionTokens: 15,
      chargedNanos: 120,
      listNanos: 240,
      cachedRequests: 1,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    },
    {
      day: '2026-11-15',
      model: 'gamma-5.4',
      endpoint: 'responses',
      requests: 1,
      promptTokens: 5,
      completionTokens: 6,
      chargedNanos: 50,
      listNanos: 100,
      cachedRequests: 0,
      cacheReadTokens: 0,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 0,
    },
  ]);
  t.same(await store.ledger.dailyUsage(b.id, at('2026-11-16T00:00:00Z')), []);
});

contract('cache and reasoning counts: recorded with each row, one at a time or many in one turn, summed per day and model', async (t, db) => {
  const store = await db.open();
  const { key } = await newKey(store);
  await store.ledger.record(ledgerRow(key.id, { promptTokens: 10, cacheReadTokens: 6, cacheWriteTokens: 0, reasoningTokens: 2 }), null);
  // Settled in one event-loop turn: PostgreSQL writes them in one statement (record-batch.ts).
  await Promise.all([
    store.ledger.record(ledgerRow(key.id, { promptTokens: 9, cacheReadTokens: 0, cacheWriteTokens: 6 }), null),
    store.ledger.record(ledgerRow(key.id, { promptTokens: 12, cacheReadTokens: 9, cacheWriteTokens: 3, cacheWrite1hTokens: 2, reasoningTokens: 5 }), null),
  ]);
  t.match(await store.ledger.dailyUsage(key.id, 0), [
    { requests: 3, promptTokens: 31, cacheReadTokens: 15, cacheWriteTokens: 9, cacheWrite1hTokens: 2, reasoningTokens: 7 },
  ]);
});

const TWO_52 = 2 ** 52;

contract('money is exact: sums up to 2^53 − 1 nano-dollars come back exactly, a sum beyond is refused loudly', async (t, db) => {
  const store = await db.open();
  const { key } = await newKey(store);
  await store.ledger.record(ledgerRow(key.id, { chargedNanos: TWO_52, listNanos: TWO_52 }), null);
  await store.ledger.record(ledgerRow(key.id, { chargedNanos: TWO_52 - 1, listNanos: TWO_52 - 1 }), null);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(Number.MAX_SAFE_INTEGER, 0, Number.MAX_SAFE_INTEGER), '2^53 − 1, exactly');
  t.match(await store.ledger.dailyUsage(key.id, 0), [{ chargedNanos: Number.MAX_SAFE_INTEGER, listNanos: Number.MAX_SAFE_INTEGER }]);

  // 2^53 + 1 has no double: a float path would give 2^53 back without a word.
  await store.ledger.record(ledgerRow(key.id, { chargedNanos: 2, listNanos: 2 }), null);
  const unsafe = /beyond what a JS number holds exactly/;
  await t.rejects(store.ledger.cycleSpend(key.id, '2026-11', 0), unsafe, 'the cycle spend');
  await t.rejects(store.ledger.cycleSpend(null, '2026-11', 0), unsafe, 'the spend of every key');
  await t.rejects(store.ledger.dailyUsage(key.id, 0), unsafe, 'the daily sums');
  await t.rejects(store.ledger.keyActivity('2026-11', 0), unsafe, 'the key table');
  await t.rejects(reserver(store, key.id, Number.MAX_SAFE_INTEGER)(1), unsafe, 'a refusal that would report it');
});

contract('a ledger row keeps the deployment of its answering attempt, written alone or in a batch', async (t, db) => {
  const store = await db.open();
  const { key } = await newKey(store);
  await store.ledger.record(ledgerRow(key.id, { deployment: 'east' }), null);
  await Promise.all([
    store.ledger.record(ledgerRow(key.id, { deployment: 'west' }), null),
    store.ledger.record(ledgerRow(key.id, { deployment: null }), null),
    store.ledger.record(ledgerRow(key.id, { deployment: 'east' }), null),
  ]);
  const rows = await db.query('SELECT deployment FROM ledger ORDER BY id');
  t.same(
    rows.map((row) => row['deployment']),
    ['east', 'west', null, 'east'],
  );
});

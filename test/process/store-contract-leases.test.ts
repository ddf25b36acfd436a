import type { ReserveInput, Store } from '../../src/store/store.js';
import { contract, type TestDatabase } from '../helpers/store-backends.js';
import { figures, ledgerRow, newKey } from '../helpers/store-fixtures.js';

/**
 * The store contract, part 7: spend reservations are leases — on SQLite and PostgreSQL. A lease
 * that ended stops counting at once: in every figure read from its end on, swept or not, and
 * against the ceiling (an admission it stands in the way of drops it),
 * renewals move the end of live leases only, sweeps drop every expired one; and PostgreSQL's
 * `spend.reserved_nano` and `spend.reserved_upstream_nano` stay equal to what the remaining
 * reservations hold, races included. Every reservation here holds twice its charged amount
 * against an upstream limit of twice the ceiling, so both limits move together.
 */

const CYCLE = '2026-11';

const reserver =
  (store: Store, keyId: string) =>
  (nanos: number, now: number, expiresAt: number, extra: Partial<ReserveInput> = {}) =>
    store.ledger.reserve({
      keyId,
      cycle: CYCLE,
      nanos,
      upstreamNanos: 2 * nanos,
      ceilingNanos: 1000,
      upstreamLimitNanos: 2000,
      instance: 'gw-a',
      now,
      expiresAt,
      ...extra,
    });

interface Held {
  column: number;
  rows: number;
  upstreamColumn: number;
  upstreamRows: number;
}

/** On PostgreSQL, the held columns of the key's spend row against the sums of its reservations; elsewhere nothing to compare. */
async function heldExactly(db: TestDatabase, keyId: string): Promise<Held | null> {
  if (db.backend !== 'postgres') return null;
  const [spend] = await db.query(`SELECT reserved_nano, reserved_upstream_nano FROM spend WHERE key_id = '${keyId}' AND cycle = '${CYCLE}'`);
  const [rows] = await db.query(
    `SELECT COALESCE(SUM(amount_nano), 0)::bigint AS held, COALESCE(SUM(upstream_nano), 0)::bigint AS upstream FROM reservations WHERE key_id = '${keyId}' AND cycle = '${CYCLE}'`,
  );
  return {
    column: Number(spend?.['reserved_nano'] ?? 0),
    rows: Number(rows?.['held']),
    upstreamColumn: Number(spend?.['reserved_upstream_nano'] ?? 0),
    upstreamRows: Number(rows?.['upstream']),
  };
}

contract('leases: an ended lease stops counting; renewals move live leases only; sweeps drop the ended ones', async (t, db) => {
  const store = await db.open();
  const { key } = await newKey(store, { monthlyCeilingNanos: 1000 });
  const reserve = reserver(store, key.id);
  const a = await reserve(600, 0, 100);
  t.ok(a.admitted);
  if (!a.admitted) return;
  t.same(await reserve(500, 99, 1099), { admitted: false, refusedBy: ['ceiling', 'upstream'], ...figures(0, 600, 0, 1200) }, 'a live lease counts');
  const b = await reserve(500, 100, 1100);
  t.ok(b.admitted, 'at its end it no longer does');
  t.same(await store.ledger.cycleSpend(key.id, CYCLE, 100), figures(0, 500, 0, 1000), 'the ended lease was dropped by the admission');
  if (!b.admitted) return;

  t.equal(await store.ledger.renewLeases([b.reservation.id, a.reservation.id], 2000, 500), 1, 'the live lease renewed, the dropped one not');
  t.same(
    await reserve(600, 1500, 2500),
    { admitted: false, refusedBy: ['ceiling', 'upstream'], ...figures(0, 500, 0, 1000) },
    'renewed: still held after its first end',
  );
  t.equal(await store.ledger.renewLeases([b.reservation.id], 3000, 2000), 0, 'a lease that has ended cannot be renewed');
  t.equal(await store.ledger.renewLeases([], 3000, 0), 0, 'nothing to renew');

  const c = await reserve(100, 2000, 2500, { cycle: '2026-12' });
  t.ok(c.admitted);
  t.equal(await store.ledger.sweepExpiredLeases(1999), 0, 'nothing has ended yet at 1999');
  t.equal(await store.ledger.sweepExpiredLeases(2500), 2, 'both ended leases swept, across cycles');
  t.same(await store.ledger.cycleSpend(key.id, CYCLE, 2500), figures(0, 0));
  t.same(await store.ledger.cycleSpend(key.id, '2026-12', 2500), figures(0, 0));

  // A call whose lease was swept still settles: its cost is spent, nothing is taken off twice.
  await store.ledger.record(ledgerRow(key.id, { chargedNanos: 300, listNanos: 600 }), b.reservation.id);
  t.same(await store.ledger.cycleSpend(key.id, CYCLE, 2500), figures(300, 0, 600, 0));
  const held = await heldExactly(db, key.id);
  if (held) t.same([held.column, held.upstreamColumn], [held.rows, held.upstreamRows], 'reserved_nano and reserved_upstream_nano exact');
});

contract('leases: 2×100 concurrent admissions from two stores while ten full leases end, with sweeps and releases racing them', async (t, db) => {
  const stores = [await db.open(), await db.open()] as const;
  const { key } = await newKey(stores[0], { monthlyCeilingNanos: 1000 });
  const old: number[] = [];
  for (let i = 0; i < 10; i++) {
    const r = await reserver(stores[0], key.id)(100, 0, 50, { instance: 'gw-dead' });
    if (r.admitted) old.push(r.reservation.id);
  }
  t.equal(old.length, 10, 'the ceiling is full of leases that end at 50');
  const work: Array<Promise<unknown>> = [];
  const admissions: Array<Promise<{ admitted: boolean }>> = [];
  for (let i = 0; i < 100; i++) {
    stores.forEach((store, s) => admissions.push(reserver(store, key.id)(100, 100, 10_000, { instance: `gw-${s}` })));
    if (i % 10 === 0) work.push(stores[i % 20 === 0 ? 0 : 1].ledger.sweepExpiredLeases(100));
    if (i % 25 === 0) work.push(stores[1].ledger.release(old[i / 25] as number));
  }
  const results = await Promise.all(admissions);
  await Promise.all(work);
  t.equal(results.filter((r) => r.admitted).length, 10, 'exactly the ten ended leases were replaced');
  t.same(await stores[1].ledger.cycleSpend(key.id, CYCLE, 100), figures(0, 1000, 0, 2000));
  t.equal(await stores[0].ledger.sweepExpiredLeases(100), 0, 'nothing ended is left');
  const held = await heldExactly(db, key.id);
  if (held) t.same(held, { column: 1000, rows: 1000, upstreamColumn: 2000, upstreamRows: 2000 }, 'the held columns equal what the reservations hold');
});

contract('leases: an ended lease an admission leaves in place still never refuses a call', async (t, db) => {
  const store = await db.open();
  const { key } = await newKey(store, { monthlyCeilingNanos: 1000 });
  const reserve = reserver(store, key.id);
  t.ok((await reserve(300, 0, 100)).admitted, 'a lease that ends at 100');
  t.ok((await reserve(300, 200, 10_000)).admitted, 'admitted at 200 whether or not the ended lease is dropped');
  // 300 live + 500 fits; with the ended 300 still counted it would not.
  const third = await reserve(500, 200, 10_000);
  t.ok(third.admitted, 'the ended lease stood in the way, so it was dropped and the call admitted');
  t.same(await store.ledger.cycleSpend(key.id, CYCLE, 200), figures(0, 800, 0, 1600), 'only the live leases are held');
  t.same(
    await reserve(300, 200, 10_000),
    { admitted: false, refusedBy: ['ceiling', 'upstream'], ...figures(0, 800, 0, 1600) },
    'a refusal names the live figures',
  );
  const held = await heldExactly(db, key.id);
  if (held) t.same([held.column, held.upstreamColumn], [held.rows, held.upstreamRows], 'reserved_nano and reserved_upstream_nano exact');
});

contract('leases: a lease that ended counts in no figure read from its end on, before any admission or sweep dropped it', async (t, db) => {
  const store = await db.open();
  const { key } = await newKey(store, { monthlyCeilingNanos: 1000 });
  const { key: other } = await newKey(store, { monthlyCeilingNanos: 1000 });
  t.ok((await reserver(store, key.id)(600, 0, 100, { instance: 'gw-dead' })).admitted, "a dead instance's lease, ending at 100");
  t.ok((await reserver(store, key.id)(300, 0, 10_000)).admitted, 'a live one');
  t.ok((await reserver(store, other.id)(1000, 0, 100, { instance: 'gw-dead' })).admitted, "another key's whole ceiling, held by the dead instance");

  t.same(await store.ledger.cycleSpend(key.id, CYCLE, 99), figures(0, 900, 0, 1800), 'before its end the lease counts');
  t.same(await store.ledger.cycleSpend(key.id, CYCLE, 100), figures(0, 300, 0, 600), 'from its end it does not: the key');
  t.same(await store.ledger.cycleSpend(null, CYCLE, 100), figures(0, 300, 0, 600), 'every key summed');
  const activity = await store.ledger.keyActivity(CYCLE, 100);
  t.same(
    [key.id, other.id].map((id) => activity.find((a) => a.keyId === id)),
    [
      { keyId: key.id, lastUsedAt: null, ...figures(0, 300, 0, 600) },
      { keyId: other.id, lastUsedAt: null, ...figures(0, 0) },
    ],
    'the key table',
  );
  t.same(await store.ledger.cycleSpend(key.id, CYCLE, 99), figures(0, 900, 0, 1800), 'reading dropped nothing');

  const whole = await reserver(store, other.id)(1000, 100, 10_000);
  t.ok(whole.admitted, "the key whose only reservation is the dead instance's is admitted up to its whole ceiling");
  t.same(await store.ledger.cycleSpend(other.id, CYCLE, 100), figures(0, 1000, 0, 2000), 'and holds exactly that');
  for (const id of [key.id, other.id]) {
    const held = await heldExactly(db, id);
    if (held) t.same([held.column, held.upstreamColumn], [held.rows, held.upstreamRows], 'reserved_nano and reserved_upstream_nano exact');
  }
});

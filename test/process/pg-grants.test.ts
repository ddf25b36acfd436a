import t from 'tap';
import type { GrantInput } from '../../src/store/grants.js';
import { PgGrantStore } from '../../src/store/postgres/grant-store.js';
import { PgLedgerStore } from '../../src/store/postgres/ledger-store.js';
import { createPool } from '../../src/store/postgres/pool.js';
import { PgRateStore } from '../../src/store/postgres/rate-store.js';
import { openStore } from '../../src/store/open-store.js';
import type { ReserveInput } from '../../src/store/store.js';
import { newKey } from '../helpers/store-fixtures.js';
import { startPostgres } from '../helpers/postgres.js';

/**
 * gateway_grant (migration 22, src/store/postgres/functions-grants.ts): admissions taken ahead
 * are real takes and reservations, granted only with wide headroom, all or what fits; a grant
 * that does not fit leaves no trace; a granted take counts as made at the grant's end.
 */

const server = await startPostgres(t);
const url = await server.createDatabase();
const store = await openStore({ path: 'unused.db', url });
t.teardown(() => store.close());
const pool = createPool(url);
t.teardown(() => pool.end());
const grants = new PgGrantStore(pool);
const ledger = new PgLedgerStore(pool);
const rates = new PgRateStore(pool);

const WINDOW = 60_000;
const LEAD = 1_000;
const reserveInput = (keyId: string, now: number, ceilingNanos: number | null): ReserveInput => ({
  keyId,
  cycle: '2026-11',
  nanos: 100,
  upstreamNanos: 7,
  ceilingNanos,
  upstreamLimitNanos: null,
  instance: 'grant-test',
  now,
  expiresAt: now + 120_000,
});
const grantInput = (keyId: string, now: number, settings: { limit?: number | null; ceiling?: number | null; count: number; spare: number }): GrantInput => ({
  take: settings.limit === null ? null : { keyId, limit: settings.limit ?? 1_000, windowMs: WINDOW, now },
  reserve: settings.ceiling === null ? null : reserveInput(keyId, now, settings.ceiling ?? 1_000_000),
  count: settings.count,
  spare: settings.spare,
  leadMs: LEAD,
});
const one = async (sql: string, values: unknown[]): Promise<Record<string, unknown>> => (await pool.query(sql, values)).rows[0] as Record<string, unknown>;
const spendOf = (keyId: string) =>
  one('SELECT charged_nano AS spent, reserved_nano AS reserved, reserved_upstream_nano AS upstream FROM spend WHERE key_id = $1', [keyId]);
const counterOf = async (keyId: string): Promise<unknown> => (await one('SELECT admitted FROM rate_counters WHERE key_id = $1', [keyId]))['admitted'];

t.test("a key's first calls go one by one: no grant without its rate counter and spend row", async (t) => {
  const { key } = await newKey(store);
  t.same((await grants.grant(grantInput(key.id, 0, { count: 4, spare: 0 }))).ids, []);
  t.equal((await rates.take({ keyId: key.id, limit: 1_000, windowMs: WINDOW, now: 0 })).waitMs, 0, 'a take makes the counter');
  t.same((await grants.grant(grantInput(key.id, 0, { count: 4, spare: 0 }))).ids, [], 'still no spend row');
  t.same(
    await grants.grant(grantInput(key.id, 0, { count: 4, spare: 0, ceiling: null })),
    { ids: [null, null, null, null], remaining: 995, resetMs: 60_000 },
    'a rate cap alone: four takes, no reservations',
  );
});

t.test('a grant holds real reservations and takes; its release gives the money back', async (t) => {
  const { key } = await newKey(store);
  const first = await ledger.reserveAfterTake({ keyId: key.id, limit: 1_000, windowMs: WINDOW, now: 0 }, reserveInput(key.id, 0, 1_000_000));
  t.ok(first.result?.admitted, 'the first call, one by one');
  const { ids } = await grants.grant(grantInput(key.id, 10, { count: 5, spare: 2 }));
  t.equal(ids.length, 5);
  t.ok(
    ids.every((id) => typeof id === 'number'),
    'each a reservation',
  );
  t.same(await spendOf(key.id), { spent: 0, reserved: 600, upstream: 42 }, 'six held: the call and the five granted');
  t.equal(await counterOf(key.id), 6, 'six takes counted');
  const rows = (await pool.query('SELECT instance, created_at, expires_at, amount_nano FROM reservations WHERE id = ANY($1::bigint[])', [ids])).rows;
  t.same(rows[0], { instance: 'grant-test', created_at: 10, expires_at: 120_010, amount_nano: 100 }, 'named after the instance, leased as a call');
  const slots = (await pool.query('SELECT at FROM rate_slots WHERE key_id = $1 ORDER BY slot', [key.id])).rows.map((r) => r.at);
  t.same(slots, [0, LEAD + 10, LEAD + 10, LEAD + 10, LEAD + 10, LEAD + 10], "the granted takes stamped at the grant's end");
  await grants.release(ids.filter((id): id is number => id !== null).slice(0, 3));
  t.same(await spendOf(key.id), { spent: 0, reserved: 300, upstream: 21 }, 'three released');
});

t.test('a grant that does not fit with its spare takes nothing: no slot, no counter, no reservation', async (t) => {
  const { key } = await newKey(store);
  // A ceiling of 20 calls of 100: one held, 19 left.
  await ledger.reserveAfterTake({ keyId: key.id, limit: 1_000, windowMs: WINDOW, now: 0 }, reserveInput(key.id, 0, 2_000));
  t.same((await grants.grant(grantInput(key.id, 5, { ceiling: 2_000, count: 4, spare: 16 }))).ids, [], '4 + 16 do not fit in 19');
  t.same(await spendOf(key.id), { spent: 0, reserved: 100, upstream: 7 });
  t.equal(await counterOf(key.id), 1, 'no take was made');
  t.equal((await grants.grant(grantInput(key.id, 5, { ceiling: 2_000, count: 4, spare: 15 }))).ids.length, 4, '4 + 15 do');
  // The rate cap: a limit of 10 with 5 in the window and a spare of 3 grants the 6th and 7th only.
  t.equal((await grants.grant(grantInput(key.id, 6, { limit: 10, count: 4, spare: 3 }))).ids.length, 2, 'up to the limit less the spare');
  t.equal(await counterOf(key.id), 7, 'the refused take was put back');
});

t.test("a granted take counts as made at the grant's end: a full window stays full until a minute after it", async (t) => {
  const { key } = await newKey(store);
  const take = async (now: number): Promise<number> => (await rates.take({ keyId: key.id, limit: 4, windowMs: WINDOW, now })).waitMs;
  t.equal(await take(0), 0);
  t.equal((await grants.grant(grantInput(key.id, 10, { limit: 4, ceiling: null, count: 3, spare: 0 }))).ids.length, 3, 'three granted at 10, stamped 1 010');
  t.equal(await take(20), 59_980, 'four in the window');
  t.equal(await take(60_000), 0, 'the take at 0 left it');
  t.equal(await take(60_500), 510, 'a granted one, which may have been used up to 1 010, still counts');
  t.equal(await take(61_010), 0, 'until a minute after its end');
});

import pg from 'pg';
import t from 'tap';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { seededRandom } from '../hardening/helpers/scale.js';
import { newKey } from '../helpers/store-fixtures.js';
import { startPostgres } from '../helpers/postgres.js';

/**
 * gateway_admit_runs (migration 20) decides a run of one key's calls at once. Its decisions must
 * be those of the calls made one by one: random batches go to it on one database and, call by
 * call, to gateway_take_then_admit / gateway_admit on a twin; every answer and every row of the
 * spend, reservations, rate counters and rate slots must match. The runs' fast path is seen in
 * the transaction's own function statistics (track_functions = 'pl').
 */

const server = await startPostgres(t);

const COLUMNS = ['keys', 'limits', 'windows', 'take_nows', 'cycles', 'nanos', 'upstreams', 'ceilings', 'upstream_limits', 'instances', 'nows', 'expires'];
const RUNS = `SELECT ord, wait, reservation_id, spent, reserved, upstream_spent, upstream_reserved FROM gateway_admit_runs(
  $1::text[], $2::integer[], $3::bigint[], $4::bigint[], $5::text[], $6::bigint[], $7::bigint[], $8::bigint[], $9::bigint[], $10::text[], $11::bigint[], $12::bigint[])`;
const TAKE_THEN_ADMIT = `SELECT wait, reservation_id, spent, reserved, upstream_spent, upstream_reserved
  FROM gateway_take_then_admit($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`;
const ADMIT = `SELECT 0::bigint AS wait, reservation_id, spent, reserved, upstream_spent, upstream_reserved
  FROM gateway_admit($1, $2, $3, $4, $5, $6, $7, $8, $9)`;
/** Releases (as a settlement would, the amount settled as spent): the same rows on both databases. */
const RELEASE_SOME = `WITH gone AS (
    DELETE FROM reservations WHERE id IN (SELECT id FROM reservations ORDER BY id LIMIT 3 OFFSET $1) RETURNING key_id, cycle, amount_nano, upstream_nano),
  held AS (SELECT key_id, cycle, SUM(amount_nano)::bigint AS amount, SUM(upstream_nano)::bigint AS upstream FROM gone GROUP BY key_id, cycle)
  UPDATE spend s SET reserved_nano = s.reserved_nano - held.amount, reserved_upstream_nano = s.reserved_upstream_nano - held.upstream,
    charged_nano = s.charged_nano + held.amount, upstream_nano = s.upstream_nano + held.upstream
  FROM held WHERE s.key_id = held.key_id AND s.cycle = held.cycle`;

interface Input {
  key: number;
  limit: number | null;
  takeNow: number;
  cycle: string;
  nanos: number;
  upstream: number;
  ceiling: number | null;
  upstreamLimit: number | null;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

interface Twin {
  client: pg.Client;
  store: Store;
  keys: string[];
}

async function twin(t: Teardown): Promise<Twin> {
  const url = await server.createDatabase();
  const store = await openStore({ path: 'unused.db', url });
  t.teardown(() => store.close());
  const keys: string[] = [];
  for (let i = 0; i < 3; i++) keys.push((await newKey(store)).key.id);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  t.teardown(() => client.end());
  // One transaction for the whole scenario: its function statistics count every call of it.
  await client.query("BEGIN; SET LOCAL track_functions = 'pl'");
  return { client, store, keys };
}

const valuesOf = (twin: Twin, input: Input): unknown[] => [
  twin.keys[input.key],
  input.limit,
  input.limit === null ? null : 60_000,
  input.limit === null ? null : input.takeNow,
  input.cycle,
  input.nanos,
  input.upstream,
  input.ceiling,
  input.upstreamLimit,
  'instance-a',
  input.takeNow,
  input.takeNow + 120_000,
];

async function calls(twin: Twin): Promise<Record<string, number>> {
  const rows = (await twin.client.query<{ funcname: string; calls: string }>('SELECT funcname, calls FROM pg_stat_xact_user_functions')).rows;
  return Object.fromEntries(rows.map((row) => [row.funcname, Number(row.calls)]));
}

/** Every row of the shared tables, the key ids named by their place, sorted. */
async function tables(twin: Twin): Promise<string[]> {
  const out: string[] = [];
  for (const table of ['spend', 'reservations', 'rate_counters', 'rate_slots']) {
    for (const row of (await twin.client.query(`SELECT * FROM ${table}`)).rows) {
      out.push(`${table} ${twin.keys.reduce((text, id, i) => text.replaceAll(id, `key${i}`), JSON.stringify(row))}`);
    }
  }
  return out.sort();
}

/** Draws from a seeded generator, so a failure replays; `pick` one of some options. */
function random(seed: number): { next: () => number; pick: <T>(options: readonly T[]) => T } {
  const next = seededRandom(seed);
  return { next, pick: (options) => options[Math.floor(next() * options.length)] as (typeof options)[number] };
}

interface Scenario {
  seed: number;
  limits: ReadonlyArray<number | null>;
  ceilings: ReadonlyArray<number | null>;
  /** Enough calls fit for runs to be decided at once (fewer one-call decisions than calls). */
  runsDecide: boolean;
}

const SCENARIOS: Record<string, Scenario> = {
  'one rate cap, a ceiling far off: most calls fit': { seed: 3, limits: [1000], ceilings: [1e12], runsDecide: true },
  'small rate caps and tight ceilings, many refusals': { seed: 7, limits: [2, 3, 5, 30], ceilings: [null, 2000, 5000, 1e12], runsDecide: false },
  'no rate cap (admissions alone)': { seed: 11, limits: [null], ceilings: [1e12, 50_000], runsDecide: true },
  'rate caps and none mixed in one batch': { seed: 13, limits: [null, 1000, 20], ceilings: [1e12, 20_000], runsDecide: true },
};

for (const [name, scenario] of Object.entries(SCENARIOS)) {
  t.test(`the same decisions as one by one: ${name}`, async (t) => {
    const [runs, single] = [await twin(t), await twin(t)];
    const { next, pick } = random(scenario.seed);
    const answers: { runs: unknown[]; single: unknown[] } = { runs: [], single: [] };
    let now = 1_000_000;
    let inputs = 0;
    for (let batch = 0; batch < 250; batch++) {
      now += pick([0, 1, 5, 200, 3000, 20_000]);
      const limit = pick(scenario.limits);
      const ceiling = pick(scenario.ceilings);
      const upstreamLimit = pick([null, null, 1500, 1e12]);
      const batchInputs: Input[] = Array.from({ length: 1 + Math.floor(next() * 14) }, () => ({
        key: Math.floor(next() * 3),
        // Now and then a call that saw another limit (a key edit between instances) or another cycle.
        limit: next() < 0.1 ? pick(scenario.limits) : limit,
        takeNow: now + Math.floor(next() * 3),
        cycle: next() < 0.05 ? '2026-12' : '2026-11',
        nanos: Math.floor(next() * 400),
        upstream: Math.floor(next() * 300),
        ceiling: next() < 0.1 ? pick(scenario.ceilings) : ceiling,
        upstreamLimit,
      }));
      // In lock order, as the store sends them (key, then cycle).
      batchInputs.sort((a, b) => a.key - b.key || (a.cycle < b.cycle ? -1 : a.cycle > b.cycle ? 1 : 0));
      inputs += batchInputs.length;
      const columns = COLUMNS.map((_, c) => batchInputs.map((input) => valuesOf(runs, input)[c]));
      answers.runs.push((await runs.client.query(RUNS, columns)).rows);
      const one: unknown[] = [];
      for (const [i, input] of batchInputs.entries()) {
        const values = valuesOf(single, input);
        // gateway_admit takes no take's limit, window or time.
        const row = (await (input.limit === null ? single.client.query(ADMIT, [values[0], ...values.slice(4)]) : single.client.query(TAKE_THEN_ADMIT, values)))
          .rows[0];
        one.push({ ord: i + 1, ...row });
      }
      answers.single.push(one);
      if (next() < 0.3) {
        const offset = Math.floor(next() * 5);
        for (const db of [runs, single]) await db.client.query(RELEASE_SOME, [offset]);
      }
    }
    t.same(answers.runs, answers.single, `every answer of ${inputs} calls in 250 batches`);
    t.same(await tables(runs), await tables(single), 'every row of spend, reservations, rate_counters and rate_slots');
    // Each call decided one by one calls one of the two (gateway_take_then_admit may call gateway_admit too).
    const nested = await calls(runs);
    const byCall = (nested['gateway_take_then_admit'] ?? 0) + (nested['gateway_admit'] ?? 0);
    t.comment(`${inputs} calls, ${byCall} calls of the one-call functions`);
    t.ok(byCall > 0, 'some runs went call by call');
    if (scenario.runsDecide) t.ok(byCall < inputs, 'and others were decided in runs');
  });
}

t.test('a run that fits is decided at once; one that does not goes call by call', async (t) => {
  const db = await twin(t);
  const run = (n: number, nanos: number, limit: number | null): Promise<pg.QueryResult> => {
    const inputs: Input[] = Array.from({ length: n }, () => ({
      key: 0,
      limit,
      takeNow: 5_000_000,
      cycle: '2026-11',
      nanos,
      upstream: 0,
      ceiling: 10_000,
      upstreamLimit: null,
    }));
    return db.client.query(
      RUNS,
      COLUMNS.map((_, c) => inputs.map((input) => valuesOf(db, input)[c])),
    );
  };
  await run(1, 100, 1000); // the cycle's first admission creates the counter and the spend row
  const before = await calls(db);
  const fits = await run(12, 100, 1000);
  const after = await calls(db);
  t.equal(fits.rows.filter((row) => row.reservation_id !== null && Number(row.wait) === 0).length, 12, 'all twelve admitted');
  t.equal(after['gateway_take_then_admit'], before['gateway_take_then_admit'], 'no call-by-call admission');
  t.same(
    fits.rows.map((row) => Number(row.reserved)),
    Array.from({ length: 12 }, (_, i) => 100 + i * 100),
    'each call sees the run before it',
  );
  const ids = fits.rows.map((row) => Number(row.reservation_id));
  const held = (await db.client.query<{ amount_nano: string }>('SELECT amount_nano FROM reservations WHERE id = ANY($1::bigint[])', [ids])).rows;
  t.equal(new Set(ids).size, 12, 'twelve reservations of their own');
  t.same(
    held.map((row) => Number(row.amount_nano)),
    Array(12).fill(100),
    "each held, with its call's amount",
  );
  const tooMuch = await run(3, 4000, 1000);
  t.same(
    tooMuch.rows.map((row) => row.reservation_id !== null),
    [true, true, false],
    'over the ceiling: the run goes call by call, the first two fit',
  );
  t.equal((await calls(db))['gateway_take_then_admit'], (after['gateway_take_then_admit'] ?? 0) + 3, 'three calls by call');
  const oneCall = async (): Promise<number[]> => {
    const counts = await calls(db);
    return ['gateway_admit', 'gateway_take_then_admit', 'gateway_rate_take'].map((name) => counts[name] ?? 0);
  };
  const beforeUntaken = await oneCall();
  const untaken = await run(6, 10, null);
  t.equal(untaken.rows.filter((row) => row.reservation_id !== null).length, 6, 'no rate cap: a run of six admitted');
  t.same(await oneCall(), beforeUntaken, 'at once, no one-call function called');
});

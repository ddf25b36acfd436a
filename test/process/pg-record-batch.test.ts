import type { Pool, QueryConfig } from 'pg';
import t from 'tap';
import { openStore } from '../../src/store/open-store.js';
import { PgLedgerStore } from '../../src/store/postgres/ledger-store.js';
import { createPool } from '../../src/store/postgres/pool.js';
import { PgRateStore } from '../../src/store/postgres/rate-store.js';
import type { ReserveInput, Store } from '../../src/store/store.js';
import { figures, ledgerRow, newKey } from '../helpers/store-fixtures.js';
import { startPostgres } from '../helpers/postgres.js';

/**
 * The settlements of one event-loop turn are group-committed (record-batch.ts): one statement
 * for all of them, each caller's promise resolving only once its row is committed; a batch the
 * server refuses falls back to one statement per settlement, so only the bad one fails. The
 * same for admissions, rate takes, and both steps of a call in one (admission-batch.ts).
 */

const server = await startPostgres(t);
const url = await server.createDatabase();
const store: Store = await openStore({ path: 'unused.db', url });
t.teardown(() => store.close());

/** A pool whose statements (their names, or text) are counted. */
function countedPool(): { pool: Pool; statements: string[] } {
  const pool = createPool(url);
  t.teardown(() => pool.end());
  const statements: string[] = [];
  const query = pool.query.bind(pool) as (config: QueryConfig) => Promise<unknown>;
  (pool as unknown as { query: (config: QueryConfig) => Promise<unknown> }).query = (config: QueryConfig) => {
    statements.push(config.name ?? config.text);
    return query(config);
  };
  return { pool, statements };
}

const reserve = async (keyId: string): Promise<number> => {
  const result = await store.ledger.reserve({
    keyId,
    cycle: '2026-11',
    nanos: 500,
    upstreamNanos: 0,
    ceilingNanos: 10 ** 12,
    upstreamLimitNanos: null,
    instance: 'test',
    now: 1,
    expiresAt: Date.now() + 60_000,
  });
  if (!result.admitted) throw new Error('refused');
  return result.reservation.id;
};

const reader = createPool(url);
t.teardown(() => reader.end());
/** How many rows of the key carry this prompt count, read on a connection of its own. */
const ledgerCount = async (keyId: string, promptTokens: number): Promise<number> =>
  (await reader.query<{ n: number }>('SELECT COUNT(*)::int AS n FROM ledger WHERE key_id = $1 AND prompt_tokens = $2', [keyId, promptTokens])).rows[0]?.n ?? -1;

t.test('concurrent settlements: one statement, each row committed when its promise resolves', async (t) => {
  const { key } = await newKey(store, { monthlyCeilingNanos: 10 ** 12 });
  const ids = await Promise.all(Array.from({ length: 8 }, () => reserve(key.id)));
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(0, 4000));
  const { pool, statements } = countedPool();
  const ledger = new PgLedgerStore(pool);
  const seen = await Promise.all(
    ids.map((id, i) =>
      ledger
        .record(ledgerRow(key.id, { promptTokens: 100 + i, chargedNanos: 100, listNanos: 7, ttftMs: i % 2 ? 3.5 : null }), id)
        .then(() => ledgerCount(key.id, 100 + i)),
    ),
  );
  t.same(statements, ['ledger_record_many'], 'one statement for the eight');
  t.same(seen, Array(8).fill(1), 'each row readable when its promise resolved');
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(800, 0, 56), 'spend added, reservations released');
  await ledger.record(ledgerRow(key.id, { promptTokens: 1 }), null);
  t.same(statements, ['ledger_record_many', 'ledger_record'], 'a lone settlement: the one-row statement');
});

t.test('a batch the server refuses: one statement each, only the bad one fails', async (t) => {
  const { key } = await newKey(store, { monthlyCeilingNanos: 10 ** 12 });
  const ids = await Promise.all(Array.from({ length: 3 }, () => reserve(key.id)));
  const { pool, statements } = countedPool();
  const ledger = new PgLedgerStore(pool);
  const results = await Promise.allSettled([
    ledger.record(ledgerRow(key.id, { promptTokens: 200, chargedNanos: 100 }), ids[0] ?? null),
    ledger.record(ledgerRow('key_missing', { promptTokens: 201 }), ids[1] ?? null),
    ledger.record(ledgerRow(key.id, { promptTokens: 202, chargedNanos: 100 }), ids[2] ?? null),
  ]);
  t.same(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
  );
  t.same(statements, ['ledger_record_many', 'ledger_record', 'ledger_record', 'ledger_record']);
  t.same([await ledgerCount(key.id, 200), await ledgerCount(key.id, 202)], [1, 1]);
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(200, 500, 40_000), "the failed settlement's reservation still held");
});

t.test('concurrent admissions: one statement, each decided as if alone, in order', async (t) => {
  const { key } = await newKey(store, { monthlyCeilingNanos: 1_500 });
  const { key: other } = await newKey(store, { monthlyCeilingNanos: 10 ** 12 });
  const { pool, statements } = countedPool();
  const ledger = new PgLedgerStore(pool);
  const input = (keyId: string, now: number): ReserveInput => ({
    keyId,
    cycle: '2026-11',
    nanos: 500,
    upstreamNanos: 0,
    ceilingNanos: keyId === key.id ? 1_500 : 10 ** 12,
    upstreamLimitNanos: null,
    instance: 'test',
    now,
    expiresAt: Date.now() + 60_000,
  });
  // Interleaved keys: the batch is sent sorted by key, the answers come back in the callers' order.
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => ledger.reserve(input(i % 2 ? other.id : key.id, i))));
  t.same(statements, ['admit_runs'], 'one statement for the eight');
  t.same(
    results.map((r) => r.admitted),
    [true, true, true, true, true, true, false, true],
    'the ceiling admits exactly three, the first three',
  );
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(0, 1_500));
  t.same(await store.ledger.cycleSpend(other.id, '2026-11', 0), figures(0, 2_000));

  const rates = new PgRateStore(pool);
  const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => rates.take({ keyId: key.id, limit: 3, windowMs: 60_000, now: 1_000 + i })));
  const waits = answers.map((answer) => answer.waitMs);
  t.same(statements, ['admit_runs', 'rate_take_many'], 'the rate takes: one statement too');
  t.same(
    waits,
    [0, 0, 0, 60_000 - 3, 60_000 - 4].map((w, i) => (i < 3 ? 0 : w)),
    'three admitted, then the wait of the oldest',
  );
  t.same(
    answers.map((answer) => [answer.remaining, answer.resetMs]),
    [
      [2, 60_000],
      [1, 59_999],
      [0, 59_998],
      [0, 60_000 - 3],
      [0, 60_000 - 4],
    ],
    "each take's headroom as at its turn: the remaining count down, the reset when the admission at 1 000 leaves",
  );
});

t.test('takes then admissions (a key with a rate cap and a ceiling): one statement for both steps of every call', async (t) => {
  const { key } = await newKey(store, { monthlyCeilingNanos: 1_000 });
  const { pool, statements } = countedPool();
  const ledger = new PgLedgerStore(pool);
  const call = (i: number) =>
    ledger.reserveAfterTake(
      { keyId: key.id, limit: 4, windowMs: 60_000, now: 1_000 + i },
      {
        keyId: key.id,
        cycle: '2026-11',
        nanos: 400,
        upstreamNanos: 0,
        ceilingNanos: 1_000,
        upstreamLimitNanos: null,
        instance: 'test',
        now: 1_000 + i,
        expiresAt: Date.now() + 60_000,
      },
    );
  const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => call(i)));
  t.same(statements, ['admit_runs'], 'one statement for the six calls, takes and admissions');
  t.same(
    answers.map((a) => a.waitMs > 0),
    [false, false, false, false, true, true],
    'the cap admits four, in order',
  );
  t.same(
    answers.map((a) => a.result?.admitted ?? null),
    [true, true, false, false, null, null],
    'of which the ceiling admits two; the refused takes reserve nothing',
  );
  t.same(
    answers.map((a) => a.remaining),
    [3, 2, 1, 0, 0, 0],
    'each headroom as at its turn although the batch reads it once decided: the later admissions of its key counted back',
  );
  t.same(
    answers.map((a) => a.resetMs),
    [60_000, 60_000 - 1, 60_000 - 2, 60_000 - 3, 60_000 - 4, 60_000 - 5],
    "each reset at its own call's time: when the admission at 1 000 leaves the window (a refusal's: its wait)",
  );
  t.same(await store.ledger.cycleSpend(key.id, '2026-11', 0), figures(0, 800));
  await call(10);
  t.same(statements, ['admit_runs', 'take_then_admit'], 'a lone call: the one-call statement');
});

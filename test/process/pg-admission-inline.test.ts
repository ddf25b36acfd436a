import type { PoolClient } from 'pg';
import t from 'tap';
import { openStore } from '../../src/store/open-store.js';
import { createPool, inTransaction } from '../../src/store/postgres/pool.js';
import type { Store } from '../../src/store/store.js';
import { newKey } from '../helpers/store-fixtures.js';
import { startPostgres } from '../helpers/postgres.js';

/**
 * gateway_take_then_admit (migration 19) admits the common case itself: no nested call of
 * gateway_admit, which PostgreSQL runs as a table function with an executor of its own. Only
 * what that fast path cannot decide (a cycle's first admission, a refusal) goes to gateway_admit.
 * The calls are read from the transaction's own function statistics (track_functions = 'pl').
 */

const server = await startPostgres(t);
const url = await server.createDatabase();
const store: Store = await openStore({ path: 'unused.db', url });
t.teardown(() => store.close());
const pool = createPool(url);
t.teardown(() => pool.end());

interface Admission {
  wait: number;
  reservation_id: number | null;
  /** gateway_admit's calls in the admission's transaction. */
  nested: number;
}

async function nestedCalls(client: PoolClient): Promise<number> {
  const row = (await client.query<{ calls: number }>("SELECT calls FROM pg_stat_xact_user_functions WHERE funcname = 'gateway_admit'")).rows[0];
  return row?.calls ?? 0;
}

async function takeThenAdmit(keyId: string, nanos: number, ceiling: number): Promise<Admission> {
  return inTransaction(pool, async (client) => {
    await client.query("SET LOCAL track_functions = 'pl'");
    // The backend's counts not yet reported (reported at most once a second) include earlier transactions': a difference.
    const before = await nestedCalls(client);
    const decided = (
      await client.query<{ wait: number; reservation_id: number | null }>(
        `SELECT wait, reservation_id FROM gateway_take_then_admit($1, 1000, 60000, $2::bigint, '2026-11', $3, 0, $4, NULL, 'test', $2::bigint, $2::bigint + 60000)`,
        [keyId, Date.now(), nanos, ceiling],
      )
    ).rows[0];
    return { wait: Number(decided?.wait), reservation_id: decided?.reservation_id ?? null, nested: (await nestedCalls(client)) - before };
  });
}

t.test('an admitted call runs no nested gateway_admit; a first admission and a refusal still do', async (t) => {
  const { key } = await newKey(store);
  const first = await takeThenAdmit(key.id, 400, 1000);
  t.match(first, { wait: 0, nested: 1 }, "the cycle's first admission: gateway_admit creates the spend row");
  t.ok(first.reservation_id !== null, 'admitted');
  const second = await takeThenAdmit(key.id, 400, 1000);
  t.match(second, { wait: 0, nested: 0 }, 'the common case: decided inline');
  t.ok(second.reservation_id !== null, 'admitted');
  const refused = await takeThenAdmit(key.id, 400, 1000);
  t.match(refused, { wait: 0, reservation_id: null, nested: 1 }, 'a refusal: gateway_admit decides under the lock');
  t.same(
    await store.ledger.cycleSpend(key.id, '2026-11', 0),
    { spent: 0, reserved: 800, upstreamSpent: 0, upstreamReserved: 0 },
    'two reservations held, nothing more',
  );
});

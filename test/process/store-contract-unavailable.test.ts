import { StoreUnavailableError } from '../../src/store/unavailable.js';
import { contract, postgresOnOwnServer } from '../helpers/store-backends.js';
import { ledgerRow, newKey } from '../helpers/store-fixtures.js';

/**
 * The store contract, part 6: a database that cannot be reached. Every call fails within the
 * configured timeout with a StoreUnavailableError (the gateway answers 503 for it), never
 * hangs, and the same store works again once the database is back — on SQLite (the file
 * write-locked by another process) and PostgreSQL (the server stopped, its sessions cut off).
 */

postgresOnOwnServer();

const TIMEOUT_MS = 400;

async function failure(call: () => Promise<unknown>): Promise<unknown> {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return undefined;
}

contract('unavailable: calls fail as StoreUnavailableError within the timeout, and the store recovers', async (t, db) => {
  const store = await db.open({ timeoutMs: TIMEOUT_MS });
  const { key } = await newKey(store, { monthlyCeilingNanos: 1000 });
  const reserve = {
    keyId: key.id,
    cycle: '2026-11',
    nanos: 100,
    upstreamNanos: 0,
    ceilingNanos: 1000,
    upstreamLimitNanos: null,
    instance: 'gw',
    now: 1,
    expiresAt: 120_001,
  };
  const resume = await db.outage();
  try {
    const started = Date.now();
    const calls: Array<[string, () => Promise<unknown>]> = [
      ['settings.set', () => store.settings.set('probe', 'during')],
      ['ledger.reserve', () => store.ledger.reserve(reserve)],
      ['ledger.record', () => store.ledger.record(ledgerRow(key.id), null)],
      ['audit.record', () => store.audit.record({ at: 1, actor: 'a', action: 'POST /keys', target: null, status: 201 })],
    ];
    for (const [name, call] of calls) {
      const error = await failure(call);
      t.ok(error instanceof StoreUnavailableError, `${name}: ${String(error)}`);
      t.equal((error as StoreUnavailableError).backend, db.backend);
    }
    const elapsed = Date.now() - started;
    t.ok(elapsed < calls.length * (TIMEOUT_MS + 1000), `all answered within their timeouts (${elapsed} ms)`);
  } finally {
    await resume();
  }
  await store.settings.set('probe', 'after');
  t.equal(await store.settings.get('probe'), 'after', 'the same store works again');
  const admitted = await store.ledger.reserve(reserve);
  t.ok(admitted.admitted, 'and admits');
});

contract('unavailable: a statement that is wrong is not an outage', async (t, db) => {
  const store = await db.open();
  const error = await failure(() => store.ledger.record(ledgerRow('key_that_does_not_exist'), null));
  t.ok(error instanceof Error, 'a broken constraint fails');
  t.notOk(error instanceof StoreUnavailableError, 'as what it is, not as unavailable');
});

import { hashSecret } from '../../src/keys/key-material.js';
import { PG_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import type { Migration } from '../../src/store/migration.js';
import type { Store } from '../../src/store/store.js';
import { RESPONSE_STATE } from '../../plugins/ingress-responses/store/state.js';
import { STATUS_STATE } from '../../plugins/status/store/state.js';
import { SIGNATURE_STATE } from '../../plugins/vendor-beta/store/state.js';
import { withPluginStates } from '../helpers/plugin-state.js';
import { contract } from '../helpers/store-backends.js';
import { newKey, sleep } from '../helpers/store-fixtures.js';

/** The store contract, part 1: KeyStore, SettingsStore, checkWritable, close, migrations — on SQLite and PostgreSQL. */

/** What the core store makes alone. */
const CORE_TABLES = [
  'admin_failures',
  'audit_log',
  'imported_keys',
  'imported_usage',
  'key_values',
  'keys',
  'ledger',
  'rate_counters',
  'rate_slots',
  'reservations',
  'schema_migrations',
  'settings',
  'spend',
];
/** What the built-in plugins' state adds, and the record of their tracks. */
const PLUGIN_TABLES = [
  'incident_attempts',
  'incident_updates',
  'incidents',
  'responses',
  'status_days',
  'status_endpoint_minutes',
  'status_latency',
  'status_rollups',
  'store_migrations',
  'thought_signatures',
];

const numbering = (migrations: readonly Migration[]): Array<{ version: number; name: string }> => migrations.map(({ version, name }) => ({ version, name }));

contract('migrations: the same tables on both backends, each migration recorded once across two opens', async (t, db) => {
  t.same(numbering(PG_MIGRATIONS), numbering(MIGRATIONS), 'same numbering');
  for (const state of [RESPONSE_STATE, STATUS_STATE, SIGNATURE_STATE])
    t.same(numbering(state.postgres.migrations), numbering(state.sqlite.migrations), `same numbering on ${state.name}'s track`);
  await (await db.open()).close();
  await db.open();
  t.same(await db.tables(), CORE_TABLES, "the core's tables alone");
  const applied = await db.query('SELECT version, name FROM schema_migrations ORDER BY version');
  t.same(applied, numbering(MIGRATIONS));
  await withPluginStates(await db.open());
  await withPluginStates(await db.open());
  t.same(await db.tables(), [...CORE_TABLES, ...PLUGIN_TABLES].sort(), "the plugins' tables come with their state");
  const tracks = await db.query('SELECT track, version, name FROM store_migrations ORDER BY track, version');
  t.same(
    tracks,
    [RESPONSE_STATE, STATUS_STATE, SIGNATURE_STATE].flatMap((state) => numbering(state.sqlite.migrations).map((m) => ({ track: state.name, ...m }))),
    'each recorded once on its track',
  );
});

contract('keys: create, get, list, count, find by value hash', async (t, db) => {
  const store = await db.open();
  t.equal(await store.keys.count(), 0);
  const { key: first, hash } = await newKey(store, {
    name: 'ci bot',
    models: ['gamma-5.4', 'alpha-opus-4.6'],
    monthlyCeilingNanos: 50_000_000_000,
    monthlyUpstreamLimitNanos: 80_000_000_001,
    expiresAt: 9_000_000_000_000,
    rpmLimit: 60,
    cacheTtlS: 120,
    now: 5,
  });
  t.match(first.id, /^key_[A-Za-z0-9]{20}$/);
  t.same(first, {
    id: first.id,
    name: 'ci bot',
    models: ['gamma-5.4', 'alpha-opus-4.6'],
    monthlyCeilingNanos: 50_000_000_000,
    monthlyUpstreamLimitNanos: 80_000_000_001,
    status: 'active',
    expiresAt: 9_000_000_000_000,
    createdAt: 5,
    updatedAt: 5,
    revokedAt: null,
    rotatedAt: null,
    previousValidUntil: null,
    display: 'sl-test…test',
    rpmLimit: 60,
    cacheTtlS: 120,
  });
  const { key: second } = await newKey(store, { name: 'plain', now: 6 });
  t.same(
    [second.models, second.monthlyCeilingNanos, second.monthlyUpstreamLimitNanos, second.expiresAt, second.rpmLimit, second.cacheTtlS],
    [null, null, null, null, null, null],
    'nulls stay null',
  );
  t.same(await store.keys.get(first.id), first);
  t.equal(await store.keys.get('key_nope'), undefined);
  t.same(
    (await store.keys.list()).map((k) => k.id),
    [first.id, second.id],
    'oldest first',
  );
  t.equal(await store.keys.count(), 2);

  const match = await store.keys.findByValueHash(hash);
  t.same(match?.key, first);
  t.ok(Buffer.isBuffer(match?.valueHash) && match?.valueHash.equals(hash), 'the stored digest comes back as bytes');
  t.equal(match?.validUntil, null, 'the current value');
  t.equal(await store.keys.findByValueHash(hashSecret('sl-unknown')), undefined);
});

contract('keys: update sets what the patch names, null clears, an unknown id answers undefined', async (t, db) => {
  const store = await db.open();
  const { key } = await newKey(store, { name: 'a', monthlyCeilingNanos: 100, rpmLimit: 5, now: 10 });
  const updated = await store.keys.update(key.id, { name: 'b', models: ['gamma-5.2'], expiresAt: 50_000, monthlyUpstreamLimitNanos: 700 }, 20);
  t.match(updated, {
    name: 'b',
    models: ['gamma-5.2'],
    expiresAt: 50_000,
    monthlyCeilingNanos: 100,
    monthlyUpstreamLimitNanos: 700,
    rpmLimit: 5,
    updatedAt: 20,
    createdAt: 10,
  });
  const cleared = await store.keys.update(
    key.id,
    { models: null, monthlyCeilingNanos: null, monthlyUpstreamLimitNanos: null, expiresAt: null, rpmLimit: null },
    30,
  );
  t.match(cleared, { name: 'b', models: null, monthlyCeilingNanos: null, monthlyUpstreamLimitNanos: null, expiresAt: null, rpmLimit: null, updatedAt: 30 });
  t.match(await store.keys.update(key.id, { rpmLimit: 0 }, 31), { rpmLimit: 0, updatedAt: 31 }, '0 is a value, not null');
  t.match(await store.keys.update(key.id, { cacheTtlS: 300 }, 32), { cacheTtlS: 300, rpmLimit: 0, updatedAt: 32 }, 'the response cache ttl');
  t.match(await store.keys.update(key.id, { cacheTtlS: null }, 33), { cacheTtlS: null, updatedAt: 33 });
  t.match(await store.keys.update(key.id, {}, 40), { name: 'b', updatedAt: 40 }, 'an empty patch only touches updated_at');
  t.equal(await store.keys.update('key_nope', { name: 'x' }, 50), undefined);
});

contract('keys: revoke stamps the first revocation only; an unknown id answers undefined', async (t, db) => {
  const store = await db.open();
  const { key, hash } = await newKey(store);
  t.match(await store.keys.revoke(key.id, 100), { status: 'revoked', revokedAt: 100, updatedAt: 100 });
  t.match(await store.keys.revoke(key.id, 200), { status: 'revoked', revokedAt: 100, updatedAt: 200 });
  t.equal((await store.keys.findByValueHash(hash))?.key.status, 'revoked', 'seen at once through the same store');
  t.equal(await store.keys.revoke('key_nope', 300), undefined);
});

contract('keys: rotate — a new current value, the old one in grace, spent values dropped', async (t, db) => {
  const store = await db.open();
  const { key, hash: v1 } = await newKey(store, { now: 0 });
  const v2 = hashSecret('second value');
  const v3 = hashSecret('third value');
  const v4 = hashSecret('fourth value');
  const rotated = await store.keys.rotate(key.id, { valueHash: v2, display: 'sl-sec…ond', now: 1_000, previousValidUntil: 5_000 });
  t.match(rotated, { id: key.id, display: 'sl-sec…ond', rotatedAt: 1_000, updatedAt: 1_000, previousValidUntil: 5_000 });
  t.match(await store.keys.findByValueHash(v1), { key: { id: key.id }, validUntil: 5_000 });
  t.match(await store.keys.findByValueHash(v2), { key: { id: key.id, display: 'sl-sec…ond' }, validUntil: null });

  // Inside the grace: v1 keeps its end, v2 gets its own.
  await store.keys.rotate(key.id, { valueHash: v3, display: 'sl-thi…ird', now: 2_000, previousValidUntil: 9_000 });
  t.equal((await store.keys.findByValueHash(v1))?.validUntil, 5_000, 'never extended');
  t.equal((await store.keys.findByValueHash(v2))?.validUntil, 9_000);
  t.equal((await store.keys.get(key.id))?.previousValidUntil, 9_000, 'the latest end');

  // After v1's grace: the next rotation drops it.
  await store.keys.rotate(key.id, { valueHash: v4, display: 'sl-fou…rth', now: 6_000, previousValidUntil: 12_000 });
  t.equal(await store.keys.findByValueHash(v1), undefined, 'a spent value is deleted');
  t.same([(await store.keys.findByValueHash(v2))?.validUntil, (await store.keys.findByValueHash(v3))?.validUntil], [9_000, 12_000]);
  t.equal((await store.keys.findByValueHash(v4))?.validUntil, null);
  t.equal(await store.keys.rotate('key_nope', { valueHash: hashSecret('x'), display: 'x', now: 7_000, previousValidUntil: 8_000 }), undefined);
  t.equal(await store.keys.count(), 1, 'still one key');
});

contract('key lookups: remembered for a second, forgotten at once on a change through the same store', async (t, db) => {
  const instanceA = await db.open();
  const instanceB = await db.open();
  const { key, hash } = await newKey(instanceA);
  t.equal((await instanceA.keys.findByValueHash(hash))?.key.status, 'active');
  await instanceA.keys.revoke(key.id, 2);
  t.equal((await instanceA.keys.findByValueHash(hash))?.key.status, 'revoked', 'a change through this store is seen at once');

  await instanceA.keys.update(key.id, { name: 'renamed' }, 3);
  t.equal((await instanceB.keys.findByValueHash(hash))?.key.name, 'renamed');
  await instanceA.keys.update(key.id, { name: 'renamed again' }, 4);
  if (db.backend === 'sqlite') {
    t.equal((await instanceB.keys.findByValueHash(hash))?.key.name, 'renamed', "another instance's change is not seen within the second…");
    await sleep(1100);
    t.equal((await instanceB.keys.findByValueHash(hash))?.key.name, 'renamed again', '…but after it');
  } else {
    t.equal(await seenWithin(instanceB, hash, 'renamed again', 250), true, "another instance's change is seen at once (NOTIFY)");
  }
});

/** Whether `store` sees the key under `name` within `ms` (polled every 10 ms). */
async function seenWithin(store: Store, hash: Buffer, name: string, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if ((await store.keys.findByValueHash(hash))?.key.name === name) return true;
    await sleep(10);
  }
  return false;
}

contract('key lookups on PostgreSQL: the change listener comes back after its connection is cut', async (t, db) => {
  if (db.backend !== 'postgres') {
    t.pass('SQLite has no notifications: the second bounds it');
    return;
  }
  const instanceA = await db.open();
  const instanceB = await db.open();
  const { key, hash } = await newKey(instanceA);
  t.equal((await instanceB.keys.findByValueHash(hash))?.key.name, 'k');
  const cut = await db.query(
    "SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE application_name = 'model-gateway-listener' AND datname = current_database()",
  );
  t.equal(cut.length, 2, "both instances' listeners cut off");
  await sleep(600); // the first retry comes after 250 ms
  t.equal((await instanceB.keys.findByValueHash(hash))?.key.name, 'k', 'remembered again');
  await instanceA.keys.update(key.id, { name: 'after the cut' }, 5);
  t.equal(await seenWithin(instanceB, hash, 'after the cut', 250), true, 'notifications arrive again');
});

contract('settings: absent, set, overwritten', async (t, db) => {
  const store = await db.open();
  t.equal(await store.settings.get('admin_token_sha256'), undefined);
  await store.settings.set('admin_token_sha256', 'abc');
  t.equal(await store.settings.get('admin_token_sha256'), 'abc');
  await store.settings.set('admin_token_sha256', 'def');
  t.equal(await store.settings.get('admin_token_sha256'), 'def');
  t.equal(await (await db.open()).settings.get('admin_token_sha256'), 'def', 'another instance reads it');
  t.equal(await store.settings.claim('admin_token_sha256', 'ghi'), false, 'a claim of a set name fails…');
  t.equal(await store.settings.get('admin_token_sha256'), 'def', '…and changes nothing');
  t.equal(await store.settings.claim('bootstrapped_at', 'now'), true, 'a claim of a free name sets it');
  t.equal(await store.settings.get('bootstrapped_at'), 'now');
});

contract('checkWritable resolves while open and rejects once closed; close twice is harmless', async (t, db) => {
  const store = await db.open();
  await store.checkWritable();
  await store.checkWritable();
  await store.close();
  await t.rejects(store.checkWritable());
  await store.close();
});

import { adminTokenHash, bootstrap } from '../../src/bootstrap.js';
import { loadCatalogue } from '../../src/catalogue/catalogue.js';
import { systemClock } from '../../src/clock.js';
import { hashSecret } from '../../src/keys/key-material.js';
import { KeyService } from '../../src/keys/key-service.js';
import { MIGRATIONS } from '../../src/store/sqlite/migrations.js';
import type { Store } from '../../src/store/store.js';
import { RESPONSE_STATE } from '../../plugins/ingress-responses/store/state.js';
import { STATUS_STATE } from '../../plugins/status/store/state.js';
import { SIGNATURE_STATE } from '../../plugins/vendor-beta/store/state.js';
import { withPluginStates } from '../helpers/plugin-state.js';
import { contract } from '../helpers/store-backends.js';
import { figures, ledgerRow, newKey } from '../helpers/store-fixtures.js';

/**
 * The store contract, part 3: two stores opened on one database (two gateway instances) racing
 * each other — on SQLite and PostgreSQL. On PostgreSQL each store has its own pool, so the
 * statements really run concurrently on separate connections.
 */

const ROUNDS = 3;
const PER_STORE = 100;
const DEADLINE_MS = 30_000;

// The same race on each limit alone: the charged ceiling, and the upstream cost limit.
for (const limit of ['ceiling', 'upstream'] as const) {
  const ceiling = limit === 'ceiling';
  contract(
    `reserve: ${ROUNDS} rounds of 2×${PER_STORE} concurrent reservations from two stores, a${ceiling ? ' ceiling' : 'n upstream limit'} that fits exactly 10`,
    async (t, db) => {
      const stores = [await db.open(), await db.open()] as const;
      const started = Date.now();
      // Each call holds 100 against the limit that is set, and 7 (or 3) against the other, unchecked.
      const [nanos, upstreamNanos] = ceiling ? [100, 7] : [3, 100];
      for (let round = 0; round < ROUNDS; round++) {
        t.ok(Date.now() - started < DEADLINE_MS, `round ${round} starts within the time bound`);
        const { key } = await newKey(stores[0], ceiling ? { monthlyCeilingNanos: 1000 } : { monthlyUpstreamLimitNanos: 1000 });
        const attempt = (store: Store, i: number) =>
          store.ledger.reserve({
            keyId: key.id,
            cycle: '2026-11',
            nanos,
            upstreamNanos,
            ceilingNanos: ceiling ? 1000 : null,
            upstreamLimitNanos: ceiling ? null : 1000,
            instance: `gw-${i % 2}`,
            now: i,
            expiresAt: i + 120_000,
          });
        const results = await Promise.all(Array.from({ length: PER_STORE }, (_, i) => stores.map((store, s) => attempt(store, i * 2 + s))).flat());
        const admitted = results.flatMap((r) => (r.admitted ? [r.reservation] : []));
        t.equal(admitted.length, 10, `round ${round}: exactly 10 admitted`);
        t.equal(new Set(admitted.map((r) => r.id)).size, 10, 'with distinct reservation ids');
        const justified = (r: (typeof results)[number]): boolean =>
          r.admitted || (ceiling ? r.spent + r.reserved + 100 > 1000 : r.upstreamSpent + r.upstreamReserved + 100 > 1000);
        t.ok(results.every(justified), 'every refusal reports figures that justify it');
        t.ok(
          results.every((r) => r.admitted || (r.refusedBy.length === 1 && r.refusedBy[0] === limit)),
          `and names the ${limit} limit`,
        );
        t.same(await stores[1].ledger.cycleSpend(key.id, '2026-11', 0), figures(0, nanos * 10, 0, upstreamNanos * 10));

        // Settle them from both stores at once: half recorded at their cost, half released.
        await Promise.all(
          admitted.map((reservation, i) =>
            i % 2 === 0
              ? stores[i % 4 === 0 ? 0 : 1].ledger.record(ledgerRow(key.id, { chargedNanos: 60, listNanos: 80 }), reservation.id)
              : stores[i % 4 === 1 ? 0 : 1].ledger.release(reservation.id),
          ),
        );
        t.same(await stores[0].ledger.cycleSpend(key.id, '2026-11', 0), figures(300, 0, 400, 0), 'settled: 5 × 60 spent, 5 × 80 upstream, nothing held');
      }
    },
  );
}

contract('migrations: stores opened at once on an empty database apply each migration once', async (t, db) => {
  const stores = await Promise.all([db.open(), db.open(), db.open()]);
  t.equal(stores.length, 3);
  const applied = await db.query('SELECT version, name FROM schema_migrations ORDER BY version');
  t.same(
    applied,
    MIGRATIONS.map(({ version, name }) => ({ version, name })),
    'one row per version',
  );
  await stores[0]?.keys.create({ name: 'k', models: null, monthlyCeilingNanos: null, expiresAt: null, valueHash: hashSecret('v'), display: 'd', now: 0 });
  t.equal(await stores[2]?.keys.count(), 1, 'and they share one schema');
  // The plugins' tracks too: each store opens the built-in plugins' state at once.
  await Promise.all(stores.map((store) => withPluginStates(store)));
  const tracks = await db.query('SELECT track, version FROM store_migrations ORDER BY track, version');
  const expected = [RESPONSE_STATE, STATUS_STATE, SIGNATURE_STATE].flatMap((state) =>
    state.sqlite.migrations.map(({ version }) => ({ track: state.name, version })),
  );
  t.same(tracks, expected, "one row per plugin's version");
});

contract('incidents: updates from two stores at once are all recorded, with distinct sequence numbers', async (t, db) => {
  const stores = [await withPluginStates(await db.open()), await withPluginStates(await db.open())] as const;
  const incident = await stores[0].status.createIncident({
    title: 'Slow',
    status: 'investigating',
    impact: 'minor',
    models: [],
    automatic: false,
    message: 'Looking.',
    now: 1,
  });
  const messages = Array.from({ length: 20 }, (_, i) => `update ${i}`);
  const results = await Promise.all(messages.map((message, i) => stores[i % 2 === 0 ? 0 : 1].status.updateIncident(incident.id, { message, now: 10 + i })));
  t.ok(
    results.every((r) => r?.id === incident.id),
    'every update answered the incident',
  );
  const final = await stores[1].status.getIncident(incident.id);
  t.equal(final?.updates.length, 21);
  t.same(new Set(final?.updates.map((u) => u.message)), new Set(['Looking.', ...messages]), 'none lost');
  const seqs = await db.query(`SELECT seq FROM incident_updates WHERE incident_id = '${incident.id}' ORDER BY seq`);
  t.same(
    seqs.map((row) => Number(row['seq'])),
    Array.from({ length: 21 }, (_, i) => i + 1),
    'sequence numbers 1…21, each once',
  );
});

contract('keys: two rotations of one key at once leave exactly one current value', async (t, db) => {
  const stores = [await db.open(), await db.open()] as const;
  const { key } = await newKey(stores[0], { now: 0 });
  const values = [hashSecret('rotated by a'), hashSecret('rotated by b')];
  await Promise.all(
    stores.map((store, i) => store.keys.rotate(key.id, { valueHash: values[i] as Buffer, display: `d${i}`, now: 100, previousValidUntil: 1_000 })),
  );
  const current = await db.query(`SELECT display FROM key_values WHERE key_id = '${key.id}' AND valid_until IS NULL`);
  t.equal(current.length, 1, 'one current value');
  t.equal((await stores[1].keys.get(key.id))?.display, current[0]?.['display']);
  const graced = await Promise.all(values.map((hash) => stores[0].keys.findByValueHash(hash)));
  t.same(new Set(graced.map((m) => (m === undefined ? 'missing' : m.validUntil))), new Set([1_000, null]), 'the other value is in its grace');
});

contract('imports: two upserts of one fingerprint at once make one import with one whole history', async (t, db) => {
  const stores = [await db.open(), await db.open()] as const;
  const history = (n: number) =>
    Array.from({ length: 50 }, (_, i) => ({
      day: `2026-11-${String((i % 28) + 1).padStart(2, '0')}`,
      modelRaw: `m${n}-${i}`,
      modelId: null,
      inputTokens: i,
      outputTokens: n,
      costNanos: i * n,
    }));
  const results = await Promise.all(
    stores.map((store, n) => store.imports.upsert({ kind: 'sk-', fingerprint: 'f'.repeat(64), last4: 'abcd', label: `from ${n}`, now: n }, history(n + 1))),
  );
  t.same(results.map((r) => r.created).sort(), [false, true], 'created once, updated once');
  t.equal(results[0]?.key.id, results[1]?.key.id);
  const [only] = await stores[0].imports.list();
  const rows = await stores[1].imports.history(only?.id ?? '');
  t.equal(rows.length, 50, 'one history, not two mixed');
  t.equal(new Set(rows.map((r) => r.outputTokens)).size, 1, 'all of it from one upload');
});

contract('settings: 2×20 concurrent claims of one name from two stores, exactly one wins', async (t, db) => {
  const stores = [await db.open(), await db.open()] as const;
  const claims = await Promise.all(Array.from({ length: 40 }, (_, i) => stores[i % 2 === 0 ? 0 : 1].settings.claim('race', `claim ${i}`)));
  const winners = claims.flatMap((won, i) => (won ? [i] : []));
  t.equal(winners.length, 1, 'one claim won');
  t.equal(await stores[1].settings.get('race'), `claim ${winners[0]}`, "and the winner's value is kept");
});

contract('bootstrap: three first starts at once on an empty database mint one admin token and one key', async (t, db) => {
  const stores = await Promise.all([db.open(), db.open(), db.open()]);
  const catalogue = loadCatalogue('config/models.yaml');
  const results = await Promise.all(stores.map((store) => bootstrap(store, new KeyService(store, catalogue, systemClock), undefined, 0)));
  const minted = results.filter((secrets) => secrets.adminToken !== undefined);
  t.equal(minted.length, 1, 'one winner shows secrets');
  t.ok(minted[0]?.firstKey, 'with a first key');
  t.same(results.filter((secrets) => Object.keys(secrets).length === 0).length, 2, 'the others show nothing');
  t.equal(await stores[2].keys.count(), 1, 'one key in the database');
  const hashes = await Promise.all(stores.map((store) => adminTokenHash(store, undefined)));
  const expected = hashSecret(minted[0]?.adminToken ?? '');
  t.ok(
    hashes.every((hash) => hash?.equals(expected)),
    "every instance knows the winner's token",
  );
  t.same(await bootstrap(stores[0], new KeyService(stores[0], catalogue, systemClock), undefined, 1), {}, 'a later start mints nothing');
});

contract('automatic incidents: 2×20 instances racing to open one for one model open exactly one', async (t, db) => {
  const stores = [await withPluginStates(await db.open()), await withPluginStates(await db.open())] as const;
  const opened = await Promise.all(
    Array.from({ length: 40 }, (_, i) =>
      stores[i % 2 === 0 ? 0 : 1].status.openAutomaticIncident('gamma-5.4', {
        title: 'Elevated upstream errors on gamma-5.4',
        status: 'investigating',
        impact: 'major',
        models: ['gamma-5.4'],
        automatic: true,
        message: `opened by ${i}`,
        now: i,
      }),
    ),
  );
  t.equal(opened.filter((incident) => incident !== undefined).length, 1, 'one opened');
  const open = await stores[1].status.openAutomaticIncidents();
  t.equal(open.length, 1, 'one open in the database');
  t.equal(open[0]?.updates.length, 1, 'with its one first update');
});

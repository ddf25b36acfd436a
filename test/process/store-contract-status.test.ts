import type { NewIncident } from '../../plugins/status/store/status.js';
import { withPluginStates } from '../helpers/plugin-state.js';
import { statusSample as sample } from '../helpers/status-sample.js';
import { contract } from '../helpers/store-backends.js';

/** The store contract, part 4: StatusStore — rollups and the incident log — on SQLite and PostgreSQL. */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const T0 = Date.parse('2026-11-15T12:00:00Z');

contract('status rollups: samples added into their minute and their hour, summed per model (and per endpoint) since a time, pruned', async (t, db) => {
  const store = await withPluginStates(await db.open());
  await store.status.record([]);
  await store.status.record([
    {
      model: 'gamma-5.4',
      minute: T0,
      requests: 10,
      failures: 1,
      latency: new Map([
        [3, 4],
        [5, 5],
      ]),
      endpoints: new Map([
        ['responses', 3],
        ['chat.completions', 7],
      ]),
    },
    { model: 'gamma-5.4', minute: T0 + MINUTE, requests: 5, failures: 0, latency: new Map([[3, 5]]), endpoints: new Map([['chat.completions', 5]]) },
    { model: 'alpha-opus-4.6', minute: T0 + MINUTE, requests: 2, failures: 2, latency: new Map(), endpoints: new Map([['messages', 2]]) },
  ]);
  // A second write into the same minute adds to it (another flush, another instance).
  await store.status.record([{ model: 'gamma-5.4', minute: T0, requests: 1, failures: 1, latency: new Map([[5, 1]]), endpoints: new Map([['responses', 1]]) }]);
  // Both come back ordered by model (and bucket), in byte order.

  t.same(await store.status.totals('minute', T0), [
    { model: 'alpha-opus-4.6', requests: 2, failures: 2 },
    { model: 'gamma-5.4', requests: 16, failures: 2 },
  ]);
  t.same(await store.status.totals('minute', T0 + MINUTE + 1), [], 'since is inclusive of a minute start only');
  t.same(await store.status.totals('minute', T0 + MINUTE), [
    { model: 'alpha-opus-4.6', requests: 2, failures: 2 },
    { model: 'gamma-5.4', requests: 5, failures: 0 },
  ]);
  t.same(
    await store.status.totals('hour', T0),
    [
      { model: 'alpha-opus-4.6', requests: 2, failures: 2 },
      { model: 'gamma-5.4', requests: 16, failures: 2 },
    ],
    'both minutes in the hour of T0',
  );
  t.same(await store.status.latency('hour', T0), [
    { model: 'gamma-5.4', bucket: 3, count: 9 },
    { model: 'gamma-5.4', bucket: 5, count: 6 },
  ]);
  t.same(await store.status.latency('minute', T0 + MINUTE), [{ model: 'gamma-5.4', bucket: 3, count: 5 }]);
  t.same(
    await store.status.endpointTotals(T0),
    [
      { model: 'alpha-opus-4.6', endpoint: 'messages', requests: 2 },
      { model: 'gamma-5.4', endpoint: 'chat.completions', requests: 12 },
      { model: 'gamma-5.4', endpoint: 'responses', requests: 4 },
    ],
    'requests per model and endpoint over the minutes since, ordered by both',
  );
  t.same(
    await store.status.endpointTotals(T0 + 1),
    [
      { model: 'alpha-opus-4.6', endpoint: 'messages', requests: 2 },
      { model: 'gamma-5.4', endpoint: 'chat.completions', requests: 5 },
    ],
    'only minutes that start at or after since',
  );

  await store.status.prune({ minutes: T0 + MINUTE, hours: T0, days: 0, attempts: 0 });
  t.same(
    await store.status.totals('minute', 0),
    [
      { model: 'alpha-opus-4.6', requests: 2, failures: 2 },
      { model: 'gamma-5.4', requests: 5, failures: 0 },
    ],
    'minutes before the cut are gone',
  );
  t.same(await store.status.latency('minute', 0), [{ model: 'gamma-5.4', bucket: 3, count: 5 }]);
  t.same(
    await store.status.endpointTotals(0),
    [
      { model: 'alpha-opus-4.6', endpoint: 'messages', requests: 2 },
      { model: 'gamma-5.4', endpoint: 'chat.completions', requests: 5 },
    ],
    'endpoint counts of minutes before the cut are gone with them',
  );
  t.equal((await store.status.totals('hour', 0)).length, 2, 'hours at the cut stay');
  await store.status.prune({ minutes: T0 + MINUTE, hours: T0 + HOUR, days: 0, attempts: 0 });
  t.same(await store.status.totals('hour', 0), []);
  t.same(await store.status.latency('hour', 0), []);
  await store.status.prune({ minutes: T0 + 2 * MINUTE, hours: T0 + HOUR, days: 0, attempts: 0 });
  t.same(await store.status.endpointTotals(0), []);
});

contract('status history: samples summed per model and UTC day, hour latency per hour, days pruned on their own', async (t, db) => {
  const store = await withPluginStates(await db.open());
  const DAY = 24 * HOUR;
  const today = Date.parse('2026-11-15T00:00:00Z');
  await store.status.record([
    sample('gamma-5.4', today - DAY + 23 * HOUR + 59 * MINUTE, 4, 1, [[2, 3]]),
    sample('gamma-5.4', today, 6, 0, [[4, 6]]),
    sample('gamma-5.4', today + 12 * HOUR, 10, 2, [[2, 8]]),
    sample('alpha-opus-4.6', today + HOUR, 3, 3),
  ]);
  // Another flush into the same day adds to it.
  await store.status.record([sample('gamma-5.4', today + 23 * HOUR + 59 * MINUTE, 1, 0, [[4, 1]])]);

  t.same(await store.status.days(0), [
    { model: 'alpha-opus-4.6', day: today, requests: 3, failures: 3 },
    { model: 'gamma-5.4', day: today - DAY, requests: 4, failures: 1 },
    { model: 'gamma-5.4', day: today, requests: 17, failures: 2 },
  ]);
  t.same(
    await store.status.days(today - DAY + 1),
    [
      { model: 'alpha-opus-4.6', day: today, requests: 3, failures: 3 },
      { model: 'gamma-5.4', day: today, requests: 17, failures: 2 },
    ],
    'days that start at or after since',
  );
  t.same(
    await store.status.latencySeries('hour', today),
    [
      { model: 'gamma-5.4', start: today, bucket: 4, count: 6 },
      { model: 'gamma-5.4', start: today + 12 * HOUR, bucket: 2, count: 8 },
      { model: 'gamma-5.4', start: today + 23 * HOUR, bucket: 4, count: 1 },
    ],
    'bucket counts per model and hour, ordered by model, hour and bucket',
  );
  t.same(await store.status.latencySeries('minute', today + 12 * HOUR), [
    { model: 'gamma-5.4', start: today + 12 * HOUR, bucket: 2, count: 8 },
    { model: 'gamma-5.4', start: today + 23 * HOUR + 59 * MINUTE, bucket: 4, count: 1 },
  ]);

  // The minutes and hours go; the days stay until their own cut.
  await store.status.prune({ minutes: today + DAY, hours: today + DAY, days: 0, attempts: 0 });
  t.same(await store.status.totals('hour', 0), []);
  t.equal((await store.status.days(0)).length, 3, 'the day rollups outlive the hour rollups');
  await store.status.prune({ minutes: 0, hours: 0, days: today, attempts: 0 });
  t.same(
    (await store.status.days(0)).map((row) => row.day),
    [today, today],
    'days before the cut are gone',
  );
});

const incident = (fields: Partial<NewIncident> = {}): NewIncident => ({
  title: 'Slow replies',
  status: 'investigating',
  impact: 'minor',
  models: ['gamma-5.4'],
  automatic: false,
  message: 'Looking.',
  now: T0,
  ...fields,
});

contract('incidents: created with their first update; a patch adds an update only for a status or a message', async (t, db) => {
  const store = await withPluginStates(await db.open());
  const created = await store.status.createIncident(incident());
  t.match(created.id, /^inc_[A-Za-z0-9]{16}$/);
  t.same(created, {
    id: created.id,
    title: 'Slow replies',
    status: 'investigating',
    impact: 'minor',
    models: ['gamma-5.4'],
    automatic: false,
    startedAt: T0,
    resolvedAt: null,
    updatedAt: T0,
    updates: [{ at: T0, status: 'investigating', message: 'Looking.' }],
  });
  const quiet = await store.status.updateIncident(created.id, { title: 'Very slow', impact: 'major', models: [], now: T0 + 1 });
  t.match(quiet, { title: 'Very slow', impact: 'major', models: [], updatedAt: T0 + 1, status: 'investigating' });
  t.equal(quiet?.updates.length, 1, 'no status or message: no update');
  const identified = await store.status.updateIncident(created.id, { status: 'identified', now: T0 + 2 });
  t.same(identified?.updates[0], { at: T0 + 2, status: 'identified', message: 'Status changed to identified.' }, 'newest first');
  const noted = await store.status.updateIncident(created.id, { message: 'A fix is rolling out.', now: T0 + 3 });
  t.same(noted?.updates[0], { at: T0 + 3, status: 'identified', message: 'A fix is rolling out.' }, 'with the current status');
  const resolved = await store.status.updateIncident(created.id, { status: 'resolved', message: 'Fixed.', now: T0 + 4 });
  t.match(resolved, { status: 'resolved', resolvedAt: T0 + 4 });
  t.match(await store.status.updateIncident(created.id, { status: 'resolved', now: T0 + 5 }), { resolvedAt: T0 + 4 }, 'stamped once');
  t.match(
    await store.status.updateIncident(created.id, { status: 'monitoring', now: T0 + 6 }),
    { status: 'monitoring', resolvedAt: null },
    'reopening clears it',
  );
  t.same(
    (await store.status.getIncident(created.id))?.updates.map((u) => u.status),
    ['monitoring', 'resolved', 'resolved', 'identified', 'identified', 'investigating'],
  );
  t.equal(await store.status.updateIncident('inc_nope', { status: 'resolved', now: T0 }), undefined);
  t.equal(await store.status.getIncident('inc_nope'), undefined);
  t.match(await store.status.createIncident(incident({ status: 'resolved' })), { resolvedAt: T0 }, 'created resolved: stamped at once');
});

contract('incidents: the list holds open ones and those started since, newest first; open automatic ones for a restart', async (t, db) => {
  const store = await withPluginStates(await db.open());
  const oldResolved = await store.status.createIncident(incident({ title: 'old', now: T0 - 10 * HOUR }));
  await store.status.updateIncident(oldResolved.id, { status: 'resolved', now: T0 - 9 * HOUR });
  const oldOpen = await store.status.createIncident(incident({ title: 'old but open', now: T0 - 8 * HOUR, automatic: true }));
  const first = await store.status.createIncident(incident({ title: 'first of two at T0', now: T0 }));
  const second = await store.status.createIncident(incident({ title: 'second of two at T0', now: T0, models: [] }));
  const auto = await store.status.createIncident(incident({ title: 'auto', now: T0 + MINUTE, automatic: true }));
  const autoResolved = await store.status.createIncident(incident({ title: 'auto resolved', now: T0 + 2 * MINUTE, automatic: true }));
  await store.status.updateIncident(autoResolved.id, { status: 'resolved', now: T0 + 3 * MINUTE });

  const listed = await store.status.listIncidents(T0 - HOUR);
  t.same(
    listed.map((i) => i.id),
    [autoResolved.id, auto.id, second.id, first.id, oldOpen.id],
    'newest first; the same instant in creation order, newest first',
  );
  t.same(
    listed[0]?.updates.map((u) => u.status),
    ['resolved', 'investigating'],
    'each with its own updates',
  );
  t.same(listed[2]?.models, [], 'the whole gateway');
  t.same((await store.status.listIncidents(0)).length, 6);
  t.same((await store.status.openAutomaticIncidents()).map((i) => i.title).sort(), ['auto', 'old but open']);
  t.same((await store.status.openAutomaticIncidents())[0]?.updates.length, 1);
});

contract('status rollups from two instances: their figures of one minute and hour, endpoint counts too, are merged', async (t, db) => {
  const [a, b] = [await withPluginStates(await db.open()), await withPluginStates(await db.open())];
  await Promise.all([
    a.status.record([
      {
        model: 'gamma-5.4',
        minute: T0,
        requests: 3,
        failures: 1,
        latency: new Map([[2, 2]]),
        endpoints: new Map([
          ['chat.completions', 2],
          ['responses', 1],
        ]),
      },
    ]),
    b.status.record([
      {
        model: 'gamma-5.4',
        minute: T0,
        requests: 4,
        failures: 0,
        latency: new Map([
          [2, 1],
          [7, 3],
        ]),
        endpoints: new Map([
          ['messages', 3],
          ['responses', 1],
        ]),
      },
    ]),
  ]);
  t.same(
    await a.status.endpointTotals(T0),
    [
      { model: 'gamma-5.4', endpoint: 'chat.completions', requests: 2 },
      { model: 'gamma-5.4', endpoint: 'messages', requests: 3 },
      { model: 'gamma-5.4', endpoint: 'responses', requests: 2 },
    ],
    'their endpoint counts of the minute summed',
  );
  t.same(await a.status.totals('minute', T0), [{ model: 'gamma-5.4', requests: 7, failures: 1 }]);
  t.same(await b.status.totals('hour', T0), [{ model: 'gamma-5.4', requests: 7, failures: 1 }]);
  t.same(await b.status.latency('minute', T0), [
    { model: 'gamma-5.4', bucket: 2, count: 3 },
    { model: 'gamma-5.4', bucket: 7, count: 3 },
  ]);
});

contract('incident watch counts: every instance adds into (model, slot); totals since a slot; pruned', async (t, db) => {
  const [a, b] = [await withPluginStates(await db.open()), await withPluginStates(await db.open())];
  const SLOT = 10_000;
  await a.status.addAttempts([]);
  await a.status.addAttempts([
    { model: 'gamma-5.4', slot: T0, attempts: 3, errors: 2 },
    { model: 'gamma-5.4', slot: T0 + SLOT, attempts: 1, errors: 0 },
  ]);
  await b.status.addAttempts([
    { model: 'gamma-5.4', slot: T0, attempts: 2, errors: 2 },
    { model: 'alpha-opus-4.6', slot: T0 + SLOT, attempts: 5, errors: 1 },
    { model: 'alpha-opus-4.6', slot: T0 + SLOT, attempts: 1, errors: 1 },
  ]);
  t.same(
    await b.status.attemptTotals(T0),
    [
      { model: 'alpha-opus-4.6', attempts: 6, errors: 2 },
      { model: 'gamma-5.4', attempts: 6, errors: 4 },
    ],
    'summed over instances and slots, ordered by model',
  );
  t.same(
    await a.status.attemptTotals(T0 + 1),
    [
      { model: 'alpha-opus-4.6', attempts: 6, errors: 2 },
      { model: 'gamma-5.4', attempts: 1, errors: 0 },
    ],
    'only slots that start at or after since',
  );
  await a.status.prune({ minutes: 0, hours: 0, days: 0, attempts: T0 + SLOT });
  t.same(
    await a.status.attemptTotals(0),
    [
      { model: 'alpha-opus-4.6', attempts: 6, errors: 2 },
      { model: 'gamma-5.4', attempts: 1, errors: 0 },
    ],
    'slots before the cut are gone',
  );
});

contract('automatic incidents: at most one open per model; resolved (or reopened by hand) it makes room; ifOpen leaves a resolved one alone', async (t, db) => {
  const store = await withPluginStates(await db.open());
  const auto = (now: number): NewIncident => incident({ title: 'Elevated upstream errors on gamma-5.4', automatic: true, impact: 'major', now });
  const first = await store.status.openAutomaticIncident('gamma-5.4', auto(T0));
  t.match(first, { automatic: true, models: ['gamma-5.4'], resolvedAt: null });
  t.equal(await store.status.openAutomaticIncident('gamma-5.4', auto(T0 + 1)), undefined, 'one is open: none opened');
  t.ok(await store.status.openAutomaticIncident('gamma-5.2', auto(T0 + 2)), 'another model has its own');
  t.ok(await store.status.createIncident(incident({ now: T0 + 3 })), 'manual incidents on the model are not limited');

  const resolved = await store.status.updateIncident(first?.id ?? '', { status: 'resolved', message: 'Recovered.', now: T0 + 4, ifOpen: true });
  t.match(resolved, { status: 'resolved', resolvedAt: T0 + 4 });
  t.equal(
    await store.status.updateIncident(first?.id ?? '', { status: 'resolved', message: 'Again.', now: T0 + 5, ifOpen: true }),
    undefined,
    'ifOpen: a resolved one is left alone',
  );
  t.equal((await store.status.getIncident(first?.id ?? ''))?.updates.length, 2, 'no update added');

  const second = await store.status.openAutomaticIncident('gamma-5.4', auto(T0 + 6));
  t.ok(second, 'a resolved one makes room for the next');
  await store.status.updateIncident(second?.id ?? '', { status: 'resolved', now: T0 + 7 });
  await store.status.updateIncident(second?.id ?? '', { status: 'monitoring', message: 'Reopened by hand.', now: T0 + 8 });
  t.ok(await store.status.openAutomaticIncident('gamma-5.4', auto(T0 + 9)), "reopened by hand it is the operator's: the watch opens its own");
  t.same((await store.status.openAutomaticIncidents()).map((i) => i.startedAt).sort(), [T0 + 2, T0 + 6, T0 + 9]);
});

contract('last automatic resolve of a model: the latest resolve of an automatic incident naming it, by hand or on recovery', async (t, db) => {
  const store = await withPluginStates(await db.open());
  const last = (model: string): Promise<number | undefined> => store.status.lastAutomaticResolve(model);
  const auto = (model: string, now: number) => store.status.openAutomaticIncident(model, incident({ models: [model], automatic: true, now }));
  const resolve = (id: string | undefined, now: number, ifOpen?: true) =>
    store.status.updateIncident(id ?? '', { status: 'resolved', now, ...(ifOpen ? { ifOpen } : {}) });
  t.equal(await last('gamma-5.4'), undefined, 'no incident');

  const first = await auto('gamma-5.4', T0);
  t.equal(await last('gamma-5.4'), undefined, 'an open one has no resolve');
  const manual = await store.status.createIncident(incident({ now: T0 }));
  await resolve(manual.id, T0 + 9 * MINUTE);
  t.equal(await last('gamma-5.4'), undefined, "a manual incident's resolve does not count");

  await resolve(first?.id, T0 + MINUTE, true);
  t.equal(await last('gamma-5.4'), T0 + MINUTE, 'resolved on recovery (ifOpen)');
  const second = await auto('gamma-5.4', T0 + 2 * MINUTE);
  await resolve(second?.id, T0 + 3 * MINUTE);
  t.equal(await last('gamma-5.4'), T0 + 3 * MINUTE, 'resolved by hand, later: the latest wins');
  await resolve(second?.id, T0 + 4 * MINUTE);
  t.equal(await last('gamma-5.4'), T0 + 3 * MINUTE, 'resolved again: the first stamp stays');

  await resolve((await auto('gamma-5.2', T0 + 5 * MINUTE))?.id, T0 + 6 * MINUTE);
  t.equal(await last('gamma-5.4'), T0 + 3 * MINUTE, "another model's resolve is not counted");
  t.equal(await last('gamma-5.2'), T0 + 6 * MINUTE);
  t.equal(await last('gamma-5'), undefined, "a model whose ID only begins the other's");

  // Started earlier, resolved later: the resolve, not the start, decides; named among others by a patch.
  const early = await store.status.createIncident(incident({ models: ['alpha-opus-4.6'], automatic: true, now: T0 - HOUR }));
  await store.status.updateIncident(early.id, { models: ['alpha-opus-4.6', 'gamma-5.4'], status: 'resolved', now: T0 + 7 * MINUTE });
  t.equal(await last('gamma-5.4'), T0 + 7 * MINUTE, 'an automatic incident naming it among other models');
  t.equal(await last('alpha-opus-4.6'), T0 + 7 * MINUTE);
  await store.status.updateIncident(early.id, { status: 'monitoring', now: T0 + 8 * MINUTE });
  t.equal(await last('gamma-5.4'), T0 + 3 * MINUTE, 'reopened: its resolve is gone');
  t.equal(await last('alpha-opus-4.6'), undefined);

  // The same answers as reading the whole log (what the watch did before).
  for (const model of ['gamma-5.4', 'gamma-5.2', 'gamma-5', 'alpha-opus-4.6']) {
    const resolves = (await store.status.listIncidents(0)).flatMap((i) =>
      i.automatic && i.resolvedAt !== null && i.models.includes(model) ? [i.resolvedAt] : [],
    );
    t.equal(await last(model), resolves.length > 0 ? Math.max(...resolves) : undefined, model);
  }
});

import pino from 'pino';
import t, { type Test } from 'tap';
import { IncidentWatch, type WatchSettings } from '../../plugins/status/incident-watch.js';
import type { StatusReport } from '../../plugins/status/report.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { chatBody, FakeClock, raw, startHarness } from '../helpers/harness.js';
import { withPluginStates } from '../helpers/plugin-state.js';

/** Automatic incidents: which models a check decides, and what a resolve by hand sets aside. */

const SETTINGS: WatchSettings = { openAt: 0.5, resolveBelow: 0.1, windowSeconds: 300, minAttempts: 10 };

/** Two gateway instances' watches, `a` and `b`, sharing a store and a clock. */
async function watches(t: Test) {
  const store = await withPluginStates(SqliteStore.open(':memory:'));
  t.teardown(() => store.close());
  const clock = new FakeClock();
  const log = pino({ level: 'silent' });
  const spawn = (): IncidentWatch => new IncidentWatch(SETTINGS, store.status, clock, log);
  const [a, b] = [spawn(), spawn()];
  const observe = (watch: IncidentWatch, model: string, n: number, error: boolean): Promise<void> => {
    for (let i = 0; i < n; i++) watch.observe(model, error);
    return watch.check();
  };
  const open = async (): Promise<string[]> => (await store.status.openAutomaticIncidents()).map((i) => i.models.join());
  const resolveByHand = async (): Promise<void> => {
    for (const incident of await store.status.openAutomaticIncidents()) await store.status.updateIncident(incident.id, { status: 'resolved', now: clock.ms });
  };
  return { store, clock, a, b, spawn, observe, open, resolveByHand };
}

t.test('resolved by hand: traffic on other models leaves it resolved (the reported case, end to end)', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock, env: { GATEWAY_RETRY_MAX: '0' } });
  const { key } = await h.createKey();
  const send = (model: string) =>
    raw(h.origin, 'POST', '/v1/chat/completions', { headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: chatBody(model) });
  const incidents = async () => ((await (await fetch(`${h.origin}/status.json`)).json()) as StatusReport).incidents;
  for (let i = 0; i < 60; i++) {
    h.gamma.faults.push({ status: 500 });
    await send('gamma-5.2');
  }
  const [opened, ...more] = await incidents();
  t.match(opened, { title: 'Elevated upstream errors on gamma-5.2', resolved_at: null });
  t.same(more, []);
  t.equal((await h.admin('PATCH', `/incidents/${opened?.id}`, { status: 'resolved', message: 'Upstream fixed.' })).status, 200);

  clock.advance(60_000);
  t.equal((await send('alpha-haiku-4.5')).status, 200);
  const after = await incidents();
  t.same(
    after.map((i) => [i.id, i.status]),
    [[opened?.id, 'resolved']],
    'no new incident: gamma-5.2 had no traffic',
  );
});

t.test('resolved by hand: a new incident opens only on failures after the resolve', async (t) => {
  const { clock, a, observe, open, resolveByHand, store } = await watches(t);
  await observe(a, 'gamma-5.2', 60, true);
  t.same(await open(), ['gamma-5.2']);
  await resolveByHand();

  clock.advance(10_000);
  await observe(a, 'alpha-haiku-4.5', 1, false);
  await observe(a, 'gamma-5.2', 2, false);
  t.same(await open(), [], 'unrelated traffic, then successes on the model: no errors go on, it stays resolved');
  await observe(a, 'gamma-5.2', 7, true);
  t.same(await open(), [], 'nine attempts since the resolve are below min_attempts: the 60 failures before are not counted');
  await observe(a, 'gamma-5.2', 1, true);
  t.same(await open(), ['gamma-5.2'], 'eight failures of ten since the resolve: the errors go on, a new incident');
  t.match((await store.status.openAutomaticIncidents())[0]?.updates[0]?.message, /80% of 10 upstream attempts failed since the last incident was resolved/);
});

t.test('resolved by hand: failures in the slot of the resolve may predate it and are not counted', async (t) => {
  const { clock, a, observe, open, resolveByHand } = await watches(t);
  await observe(a, 'gamma-5.2', 20, true);
  clock.advance(5_000);
  await resolveByHand();
  await observe(a, 'gamma-5.2', 20, true);
  t.same(await open(), [], 'same 10-s slot as the resolve');
  clock.advance(5_000);
  await observe(a, 'gamma-5.2', 10, true);
  t.same(await open(), ['gamma-5.2'], 'the next slot counts');
});

t.test("resolved by hand, several instances: only the model's own attempts, from any instance, count as traffic", async (t) => {
  const { clock, a, b, spawn, observe, open, resolveByHand } = await watches(t);
  await observe(a, 'gamma-5.2', 30, true);
  await observe(b, 'gamma-5.2', 30, true);
  t.same(await open(), ['gamma-5.2']);
  await resolveByHand();

  clock.advance(10_000);
  await Promise.all([observe(a, 'alpha-haiku-4.5', 5, false), observe(b, 'gamma-5.4', 5, false)]);
  t.same(await open(), [], 'traffic on other models, on both instances');
  await observe(a, 'gamma-5.2', 5, true);
  t.same(await open(), [], "A's five failures since the resolve are below min_attempts");
  await observe(b, 'gamma-5.2', 5, true);
  t.same(await open(), ['gamma-5.2'], "B's five more: ten since the resolve, summed over instances");
  // A restarted instance knows nothing of the resolve but reads it from the store.
  await resolveByHand();
  clock.advance(10_000);
  await observe(spawn(), 'gamma-5.2', 1, true);
  t.same(await open(), [], 'one failure after the second resolve: the earlier ones stay set aside');
});

t.test('a model without traffic keeps its state: open stays open while its old failures slide out', async (t) => {
  const { clock, a, observe, open } = await watches(t);
  await observe(a, 'gamma-5.2', 10, true);
  t.same(await open(), ['gamma-5.2']);
  clock.advance(10_000);
  await observe(a, 'gamma-5.2', 90, false);
  t.same(await open(), ['gamma-5.2'], '10 % of 100: not below resolve_below yet');

  // The failures' slot leaves the window; only successes are left in it, but none are new.
  clock.advance(295_000);
  await observe(a, 'alpha-haiku-4.5', 20, false);
  t.same(await open(), ['gamma-5.2'], "other models' traffic decides nothing about gamma-5.2");
  await observe(a, 'gamma-5.2', 1, false);
  t.same(await open(), [], 'its own traffic: 0 % of 91, resolved');
});

t.test('a check that fails after adding its counts decides their models at the next check', async (t) => {
  const { store, clock, open } = await watches(t);
  let failures = 1;
  // The store's methods are read-only: the failing one is defined on an object inheriting the rest.
  const status = Object.defineProperty(Object.create(store.status) as typeof store.status, 'openAutomaticIncidents', {
    value: () => (failures-- > 0 ? Promise.reject(new Error('connection lost')) : store.status.openAutomaticIncidents()),
  });
  const watch = new IncidentWatch(SETTINGS, status, clock, pino({ level: 'silent' }));
  for (let i = 0; i < 10; i++) watch.observe('gamma-5.2', true);
  await watch.check();
  t.same(await open(), [], 'counts added, the decision failed');
  await watch.check();
  t.same(await open(), ['gamma-5.2'], 'decided with no new attempts since');
});

import pino from 'pino';
import t from 'tap';
import { IncidentWatch } from '../../plugins/status/incident-watch.js';
import type { StatusReport } from '../../plugins/status/report.js';
import { backendStore } from '../helpers/harness-database.js';
import { ADMIN_TOKEN, chatBody, FakeClock, raw, startHarness, type Harness } from '../helpers/harness.js';
import { pluginConfig } from '../helpers/ops.js';
import { withPluginStates } from '../helpers/plugin-state.js';
import { STATUS_STATE } from '../../plugins/status/store/state.js';

const DAY = 24 * 3_600_000;

const statusJson = async (h: Harness): Promise<StatusReport> => (await fetch(`${h.origin}/status.json`)).json() as Promise<StatusReport>;

const send = (h: Harness, key: string, model: string) =>
  raw(h.origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody(model),
  });

t.test('/status.json: uptime and percentiles per model from what the gateway served', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock, env: { GATEWAY_RETRY_MAX: '0' }, simulatedFamilies: ['gamma'] });
  const { key } = await h.createKey();
  for (let i = 0; i < 4; i++) t.equal((await send(h, key, 'gamma-5.4')).status, 200);
  h.gamma.faults.push({ status: 503 });
  t.equal((await send(h, key, 'gamma-5.4')).status, 503);
  h.gamma.faults.push({ status: 400 });
  t.equal((await send(h, key, 'gamma-5.4')).status, 400, "a caller's mistake is not downtime");
  const stream = await h.client(key).chat.completions.create({ model: 'gamma-5.2', stream: true, messages: [{ role: 'user', content: 'x' }] });
  for await (const _chunk of stream);
  t.equal((await raw(h.origin, 'POST', '/v1/chat/completions', { body: chatBody() })).status, 401, 'a refusal never reaches a model');

  const res = await fetch(`${h.origin}/status.json`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('access-control-allow-origin'), '*');
  const report = (await res.json()) as StatusReport;
  t.same(
    report.models.map((m) => m.id),
    h.catalogue.models.map((m) => m.id),
    'every model of the catalogue, in its order',
  );
  const g54 = report.models.find((m) => m.id === 'gamma-5.4');
  t.equal(g54?.requests_24h, 6);
  t.same(g54?.requests_24h_by_endpoint, { 'chat.completions': 6 }, 'the same requests by endpoint');
  t.same(g54?.uptime, { '24h': 5 / 6, '7d': 5 / 6, '30d': 5 / 6 }, 'one 503 in six requests');
  t.ok(g54?.latency_ms && g54.latency_ms.p50 > 0 && g54.latency_ms.p50 <= g54.latency_ms.p95 && g54.latency_ms.p95 <= g54.latency_ms.p99);
  t.equal(g54?.simulated, true);
  const g52 = report.models.find((m) => m.id === 'gamma-5.2');
  t.same(g52?.uptime['24h'], 1);
  t.ok(g52?.latency_ms, 'a streamed call has a latency (to its first byte)');
  const idle = report.models.find((m) => m.id === 'gamma-5.1-code');
  t.same(idle, {
    id: 'gamma-5.1-code',
    family: 'gamma',
    state: 'operational',
    simulated: true,
    uptime: { '24h': null, '7d': null, '30d': null },
    requests_24h: 0,
    requests_24h_by_endpoint: {},
    latency_ms: null,
    days: Array.from({ length: 90 }, (_, i) => ({ date: new Date(clock.ms - (89 - i) * DAY).toISOString().slice(0, 10), uptime: null, requests: 0 })),
    latency_24h: Array.from({ length: 24 }, (_, i) => ({ start: new Date(clock.ms - (23 - i) * 3_600_000).toISOString(), p50: null, p95: null })),
  });
  t.equal(report.models.find((m) => m.id === 'alpha-opus-4.6')?.simulated, false);
  t.same(report.uptime, { '24h': 6 / 7, '7d': 6 / 7, '30d': 6 / 7 });
  t.same(report.status, { state: 'operational', description: 'All systems operational' });
  t.same(report.simulated_families, ['gamma']);
  t.equal(report.generated_at, new Date(clock.ms).toISOString());

  // Two days later the 24 h window is empty, the 7 d and 30 d ones are not.
  clock.advance(2 * DAY);
  const later = await statusJson(h);
  t.same(later.models.find((m) => m.id === 'gamma-5.4')?.uptime, { '24h': null, '7d': 5 / 6, '30d': 5 / 6 });
  t.equal(later.models.find((m) => m.id === 'gamma-5.4')?.latency_ms, null, 'percentiles are of the last 24 h');
  // Forty days later everything has aged out, and the rollups are pruned.
  clock.advance(40 * DAY);
  t.same((await statusJson(h)).uptime, { '24h': null, '7d': null, '30d': null });
  const status = await h.store.extend(STATUS_STATE);
  t.same(await status.totals('minute', 0), [], 'minute rollups pruned');
  t.same(await status.totals('hour', 0), [], 'hour rollups pruned');
});

t.test('automatic incidents: opened over the error-rate threshold, resolved on recovery', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, {
    clock,
    env: { GATEWAY_RETRY_MAX: '0' },
    configure: pluginConfig('status', { incidents: { open_at_error_rate: 0.5, resolve_below_error_rate: 0.2, window_s: 60, min_attempts: 3 } }),
  });
  const { key } = await h.createKey();
  for (let i = 0; i < 2; i++) {
    h.gamma.faults.push({ status: 503 });
    await send(h, key, 'gamma-5.3-code');
  }
  t.same((await statusJson(h)).incidents, [], 'two attempts are below min_attempts');
  h.gamma.faults.push({ status: 503 });
  await send(h, key, 'gamma-5.3-code');
  let report = await statusJson(h);
  t.equal(report.incidents.length, 1, 'three failed attempts out of three: opened');
  const incident = report.incidents[0];
  t.match(incident, {
    title: 'Elevated upstream errors on gamma-5.3-code',
    status: 'investigating',
    impact: 'major',
    models: ['gamma-5.3-code'],
    automatic: true,
    resolved_at: null,
  });
  t.match(incident?.updates[0]?.message, /100% of 3 upstream attempts failed over the last 60 s/);
  t.equal(report.models.find((m) => m.id === 'gamma-5.3-code')?.state, 'partial_outage');
  t.equal(report.models.find((m) => m.id === 'gamma-5.4')?.state, 'operational');
  t.same(report.status, { state: 'partial_outage', description: 'Partial outage' });
  t.ok(
    h.logs.some((l) => l.includes('incident opened')),
    'logged',
  );

  h.gamma.faults.push({ status: 503 });
  await send(h, key, 'gamma-5.3-code');
  t.equal((await statusJson(h)).incidents.length, 1, 'one open incident per model');

  // Successes inside the same window dilute the rate, but not below 20 % yet.
  clock.advance(61_000);
  for (let i = 0; i < 2; i++) t.equal((await send(h, key, 'gamma-5.3-code')).status, 200);
  t.equal((await statusJson(h)).incidents[0]?.resolved_at, null, 'below min_attempts in the new window: no verdict');
  t.equal((await send(h, key, 'gamma-5.3-code')).status, 200);
  report = await statusJson(h);
  t.equal(report.incidents.length, 1);
  t.equal(report.incidents[0]?.status, 'resolved');
  t.equal(report.incidents[0]?.resolved_at, new Date(clock.ms).toISOString());
  t.match(report.incidents[0]?.updates[0]?.message, /Resolved automatically: 0% of 3/);
  t.same(report.status.state, 'operational');
});

t.test('automatic incidents: attempts summed over instances, one incident opened, resolved by any (a restarted one too)', async (t) => {
  const store = await withPluginStates(await backendStore(t));
  const clock = new FakeClock();
  const log = pino({ level: 'silent' });
  const settings = { openAt: 0.5, resolveBelow: 0.1, windowSeconds: 60, minAttempts: 4 };
  const [a, b] = [new IncidentWatch(settings, store.status, clock, log), new IncidentWatch(settings, store.status, clock, log)];
  for (const watch of [a, b]) {
    watch.observe('gamma-5.4', true);
    watch.observe('gamma-5.4', true);
  }
  await a.check();
  t.same(await store.status.openAutomaticIncidents(), [], "A's two attempts alone are below min_attempts");
  await b.check();
  const [open, ...more] = await store.status.openAutomaticIncidents();
  t.same(more, [], 'B adds its two: four failed of four, one incident');
  t.match(open?.updates[0]?.message, /100% of 4 upstream attempts failed/);
  a.observe('gamma-5.4', true);
  await Promise.all([a.check(), b.check()]);
  t.equal((await store.status.openAutomaticIncidents()).length, 1, 'still one');

  // A new instance (or a restart) has no memory of it, and resolves it from the shared counts.
  clock.advance(61_000);
  const restarted = new IncidentWatch(settings, store.status, clock, log);
  for (let i = 0; i < 4; i++) restarted.observe('gamma-5.4', false);
  await restarted.check();
  t.equal((await store.status.getIncident(open?.id ?? ''))?.status, 'resolved');
  t.same(await store.status.openAutomaticIncidents(), []);
  await Promise.all([a.check(), b.check()]);
  t.equal((await store.status.getIncident(open?.id ?? ''))?.updates.length, 2, 'resolved once');
});

t.test('manual incidents through /admin/v1/incidents', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const created = await h.admin('POST', '/incidents', {
    title: 'Planned <maintenance> & "upgrade"',
    impact: 'minor',
    models: ['Gamma-5-4', 'gamma-5.4'],
    message: 'Upgrading the <b>gamma</b> fleet.',
  });
  t.equal(created.status, 201);
  const incident = (await created.json()) as { id: string; models: string[]; status: string; automatic: boolean; updates: unknown[] };
  t.match(incident.id, /^inc_/);
  t.same(incident.models, ['gamma-5.4'], 'aliases resolved, duplicates dropped');
  t.equal(incident.status, 'investigating');
  t.equal(incident.automatic, false);
  t.equal(incident.updates.length, 1);

  clock.advance(60_000);
  const identified = await h.admin('PATCH', `/incidents/${incident.id}`, { status: 'identified', message: 'Found it.' });
  t.equal(identified.status, 200);
  t.match(await identified.json(), { status: 'identified', updates: [{ status: 'identified', message: 'Found it.' }, { status: 'investigating' }] });
  t.equal((await statusJson(h)).models.find((m) => m.id === 'gamma-5.4')?.state, 'degraded', 'minor impact: degraded');

  // A newer gateway-wide incident, then resolution.
  clock.advance(60_000);
  const wide = (await (await h.admin('POST', '/incidents', { title: 'Network trouble', impact: 'critical' })).json()) as { id: string };
  let report = await statusJson(h);
  t.same(
    report.incidents.map((i) => i.id),
    [wide.id, incident.id],
    'newest first',
  );
  t.same(report.status.state, 'major_outage');
  t.equal(report.models.find((m) => m.id === 'alpha-haiku-4.5')?.state, 'major_outage', 'no models named: all are affected');
  const resolved = await h.admin('PATCH', `/incidents/${wide.id}`, { status: 'resolved' });
  t.match(await resolved.json(), { status: 'resolved', resolved_at: new Date(clock.ms).toISOString(), updates: [{ message: 'Status changed to resolved.' }] });
  report = await statusJson(h);
  t.same(report.status.state, 'degraded');
  t.equal(((await (await h.admin('GET', '/incidents')).json()) as { data: unknown[] }).data.length, 2);
  t.equal((await h.admin('GET', `/incidents/${incident.id}`)).status, 200);

  // Every string on the page is escaped.
  const page = await (await fetch(`${h.origin}/status`)).text();
  t.match(page, 'Planned &#60;maintenance&#62; &#38; &#34;upgrade&#34;');
  t.match(page, 'Upgrading the &#60;b&#62;gamma&#60;/b&#62; fleet.');
  t.notMatch(page, '<maintenance>');
  t.notMatch(page, '<b>gamma');

  for (const [method, path, body, status, param] of [
    ['POST', '/incidents', { impact: 'minor' }, 400, 'title'],
    ['POST', '/incidents', { title: 'x', status: 'exploded' }, 400, 'status'],
    ['POST', '/incidents', { title: 'x', models: ['gamma-9'] }, 400, 'models'],
    ['POST', '/incidents', { title: 'x', color: 'red' }, 400, 'color'],
    ['PATCH', `/incidents/${incident.id}`, {}, 400, null],
    ['PATCH', '/incidents/inc_nope', { status: 'resolved' }, 404, 'id'],
    ['GET', '/incidents/inc_nope', undefined, 404, 'id'],
  ] as const) {
    const res = await h.admin(method, path, body);
    t.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)} → ${status}`);
    t.match(await res.json(), { error: { param } });
  }
  const anonymous = await fetch(`${h.origin}/admin/v1/incidents`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"title":"x"}' });
  t.equal(anonymous.status, 401, 'the admin token is required');
  t.not(ADMIN_TOKEN, '');
});

t.test('the status site on a port of its own', async (t) => {
  const h = await startHarness(t, { configure: pluginConfig('status', { port: 0 }) });
  const origin = h.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'status site listening on its own port')?.origin as string;
  t.match(origin, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.equal((await fetch(`${h.origin}/status`)).status, 404, 'not on the gateway port');
  const page = await fetch(`${origin}/status`);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-type'), /^text\/html/);
  t.equal((await fetch(`${origin}/status.json`)).status, 200);
  t.equal((await fetch(`${origin}/v1/models`)).status, 404, 'only the status site there');
  // Incidents are still managed through the gateway's admin API.
  t.equal((await h.admin('POST', '/incidents', { title: 'x' })).status, 201);
  t.equal(((await (await fetch(`${origin}/status.json`)).json()) as StatusReport).incidents.length, 1);
});

t.test('health: /healthz (up) and /readyz (database writable)', async (t) => {
  const h = await startHarness(t);
  const health = await fetch(`${h.origin}/healthz`);
  t.equal(health.status, 200);
  t.same(await health.json(), { status: 'ok' });
  const ready = await fetch(`${h.origin}/readyz`);
  t.equal(ready.status, 200);
  t.same(await ready.json(), { status: 'ready', checks: { config: 'ok', database: 'ok' } });
  await h.store.close();
  const down = await fetch(`${h.origin}/readyz`);
  t.equal(down.status, 503);
  t.same(await down.json(), { status: 'not_ready', checks: { config: 'ok', database: 'not writable' } });
  t.equal((await fetch(`${h.origin}/healthz`)).status, 200, 'still alive');
});

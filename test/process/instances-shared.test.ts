import t from 'tap';
import type { StatusReport } from '../../plugins/status/report.js';
import { chat, instancesOnPostgres } from '../helpers/instances.js';

/**
 * Three gateway processes started at once on an empty PostgreSQL database without
 * GATEWAY_ADMIN_TOKEN: one migration run, one admin token and one first key. Then, with those,
 * the status site across them: a manual incident resolved through A is resolved on B's and C's
 * /status.json, an automatic incident opened from upstream errors spread over the three (none
 * of which saw enough alone) exists once, and their figures are merged.
 */

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
const MODEL = 'gamma-5.4';

const instances = await instancesOnPostgres(t, {
  plugins: { status: { flush_ms: 200, incidents: { open_at_error_rate: 0.5, resolve_below_error_rate: 0.1, window_s: 60, min_attempts: 6, check_ms: 200 } } },
});
const gateways = ['gw-a', 'gw-b', 'gw-c'].map((name) => instances.start(name, { GATEWAY_ADMIN_TOKEN: '', GATEWAY_RETRY_MAX: '0' }));
const origins = (await Promise.all(gateways.map((gateway) => gateway.ready))) as [string, string, string];
// The banner follows the listening line.
await sleep(300);
const outputs = gateways.map((gateway) => gateway.output());
const bannerOf = outputs.find((output) => output.includes('First API key'));
const adminToken = /Admin token \(GATEWAY_ADMIN_TOKEN\):\s+(\S+)/.exec(bannerOf ?? '')?.[1] ?? '';
const firstKey = /First API key:\s+(sl-[A-Za-z0-9]{32})/.exec(bannerOf ?? '')?.[1] ?? '';

const adminCall = async (origin: string, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> => {
  const res = await fetch(`${origin}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
};
const statusOf = async (origin: string): Promise<StatusReport> => (await fetch(`${origin}/status.json`)).json() as Promise<StatusReport>;

t.test('three first starts at once on an empty database: one migration run, one admin token, one key', async (t) => {
  t.equal(outputs.filter((output) => output.includes('First API key')).length, 1, 'exactly one printed the banner');
  for (const track of ['core', 'status', 'ingress-responses', 'vendor-beta']) {
    const appliers = outputs.filter((output) =>
      output.split('\n').some((line) => line.includes('database migrations applied') && line.includes(`"track":"${track}"`)),
    );
    t.equal(appliers.length, 1, `exactly one applied the migrations of the ${track} track`);
  }
  t.same(await instances.query('SELECT COUNT(*)::int AS n FROM keys'), [{ n: 1 }], 'one key in the database');
  for (const origin of origins) t.equal((await adminCall(origin, 'GET', '/keys')).status, 200, `the printed admin token works on ${origin}`);
  for (const origin of origins) t.equal((await chat(origin, firstKey, 'Hi')).status, 200, `the printed key works on ${origin}`);
});

t.test('a manual incident resolved through A is resolved on the status pages of B and C', async (t) => {
  const created = await adminCall(origins[0], 'POST', '/incidents', { title: 'Slow replies', impact: 'minor', models: [MODEL] });
  t.equal(created.status, 201);
  const id = String(created.json['id']);
  for (const origin of origins.slice(1)) t.equal((await statusOf(origin)).models.find((m) => m.id === MODEL)?.state, 'degraded', 'open everywhere');
  t.equal((await adminCall(origins[0], 'PATCH', `/incidents/${id}`, { status: 'resolved', message: 'Fixed.' })).status, 200);
  for (const origin of origins.slice(1)) {
    const report = await statusOf(origin);
    t.equal(report.incidents.find((i) => i.id === id)?.status, 'resolved', `resolved on ${origin}`);
    t.equal(report.models.find((m) => m.id === MODEL)?.state, 'operational');
  }
});

t.test('upstream errors spread over the three open one automatic incident; their figures are merged', async (t) => {
  const FAILING = 'gamma-5.2'; // no attempt on it yet
  // Two failing calls per instance: six in all, the minimum, none of the instances with more than two.
  const statuses = await Promise.all(
    [0, 1, 2, 0, 1, 2].map((i) => chat(origins[i] as string, firstKey, 'fail [[sim:status=500]]', { model: FAILING }).then((r) => r.status)),
  );
  t.same(statuses, [502, 502, 502, 502, 502, 502]);
  await sleep(600); // every instance's check (every 200 ms) has added its counts
  const reports = await Promise.all(origins.map(statusOf));
  for (const report of reports) {
    const open = report.incidents.filter((i) => i.automatic && i.resolved_at === null);
    t.same(
      open.map((i) => i.models),
      [[FAILING]],
      'one open automatic incident, seen by every instance',
    );
    t.match(open[0]?.updates.at(-1)?.message, /100% of 6 upstream attempts failed/, 'decided on the attempts of all three');
    t.equal(report.models.find((m) => m.id === FAILING)?.requests_24h, 6, "every instance's calls in its figures");
    t.same(report.models.find((m) => m.id === FAILING)?.requests_24h_by_endpoint, { 'chat.completions': 6 }, 'by endpoint too');
    t.equal(report.models.find((m) => m.id === FAILING)?.uptime['24h'], 0);
  }
  t.same(await instances.query('SELECT COUNT(*)::int AS n FROM incidents WHERE automatic AND resolved_at IS NULL'), [{ n: 1 }], 'one in the database');
});

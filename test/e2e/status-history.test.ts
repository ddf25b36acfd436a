import { readFileSync } from 'node:fs';
import t from 'tap';
import { bucketOf } from '../../plugins/status/latency-buckets.js';
import type { StatusReport } from '../../plugins/status/report.js';
import { STATUS_STATE } from '../../plugins/status/store/state.js';
import { chatBody, FakeClock, raw, startHarness, type Harness } from '../helpers/harness.js';
import { mockDeployment } from '../helpers/mock-deployment.js';
import { statusSample as sample } from '../helpers/status-sample.js';

/** The status site's history (docs/operations.md#history): 90 daily bars, the 24-hour latency series, incidents on that timeline. */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/** 2026-11-15T12:00:00Z: FakeClock's start. */
const NOW = Date.parse('2026-11-15T12:00:00Z');
const TODAY = Date.parse('2026-11-15T00:00:00Z');

const statusJson = async (h: Harness): Promise<StatusReport> => (await fetch(`${h.origin}/status.json`)).json() as Promise<StatusReport>;
const statusPage = async (h: Harness): Promise<string> => (await fetch(`${h.origin}/status`)).text();

const send = (h: Harness, key: string, model: string) =>
  raw(h.origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody(model),
  });

t.test('/status.json: 90 days per model and for all, oldest first, from the day rollups the recorder writes', async (t) => {
  const clock = new FakeClock(NOW);
  const h = await startHarness(t, { clock, env: { GATEWAY_RETRY_MAX: '0' } });
  const status = await h.store.extend(STATUS_STATE);
  // Past days, written as other instances' flushes would have.
  await status.record([
    sample('gamma-5.4', TODAY - 89 * DAY, 10, 1),
    sample('gamma-5.4', TODAY - 90 * DAY + 23 * HOUR, 50, 50), // the day before the history: not shown
    sample('gamma-5.4', TODAY - 3 * DAY + 5 * HOUR, 200, 0),
    sample('gamma-5.4', TODAY - 3 * DAY + 20 * HOUR, 200, 4),
    sample('gamma-5.2', TODAY - 3 * DAY, 100, 100),
  ]);
  const { key } = await h.createKey();
  for (let i = 0; i < 3; i++) t.equal((await send(h, key, 'gamma-5.4')).status, 200);
  h.gamma.faults.push({ status: 503 });
  t.equal((await send(h, key, 'gamma-5.4')).status, 503);

  const report = await statusJson(h);
  const g54 = report.models.find((m) => m.id === 'gamma-5.4');
  const days = g54?.days ?? [];
  t.equal(days.length, 90, 'ninety days');
  t.same(days[0], { date: '2026-08-18', uptime: 0.9, requests: 10 }, 'oldest first: 89 days before today');
  t.same(days[1], { date: '2026-08-19', uptime: null, requests: 0 }, 'a day without requests: no uptime');
  t.same(days[86], { date: '2026-11-12', uptime: 396 / 400, requests: 400 }, "a day's minutes summed");
  t.same(days[89], { date: '2026-11-15', uptime: 0.75, requests: 4 }, 'today, from the calls this gateway served');
  t.same(
    days.map((d) => d.date),
    Array.from({ length: 90 }, (_, i) => new Date(TODAY - (89 - i) * DAY).toISOString().slice(0, 10)),
    'every date once, consecutive',
  );
  t.same(report.models.find((m) => m.id === 'gamma-5.2')?.days[86], { date: '2026-11-12', uptime: 0, requests: 100 });
  t.ok(
    report.models.find((m) => m.id === 'alpha-haiku-4.5')?.days.every((d) => d.uptime === null && d.requests === 0),
    'an idle model: 90 days without data',
  );
  t.equal(report.days.length, 90);
  t.same(report.days[86], { date: '2026-11-12', uptime: 396 / 500, requests: 500 }, 'all models: every model of the day summed');
  t.same(report.days[89], { date: '2026-11-15', uptime: 0.75, requests: 4 });

  // A month on, the history has moved with the clock, and the day rollups outlive the hour ones.
  clock.advance(31 * DAY);
  const later = await statusJson(h);
  const moved = later.models.find((m) => m.id === 'gamma-5.4')?.days ?? [];
  t.same(moved[55], { date: '2026-11-12', uptime: 396 / 400, requests: 400 });
  t.same(moved[58], { date: '2026-11-15', uptime: 0.75, requests: 4 });
  t.same(later.models.find((m) => m.id === 'gamma-5.4')?.uptime['30d'], null, 'the 30-day window no longer holds them');
  t.equal(moved[0]?.date, '2026-09-18');

  // Past 92 days the day rollups are pruned.
  clock.advance(62 * DAY);
  t.same(
    (await statusJson(h)).days.filter((d) => d.requests > 0),
    [],
    'nothing left in the history',
  );
  t.same(await status.days(0), [], 'day rollups pruned');
});

t.test('/status.json: the latency of the last 24 hours per hour, p50 and p95 from the hour buckets', async (t) => {
  const clock = new FakeClock(NOW + 30 * 60_000);
  const h = await startHarness(t, { clock });
  const status = await h.store.extend(STATUS_STATE);
  await status.record([
    // 4 successes in (75, 100] ms three hours ago; an hour before the series starts.
    sample('gamma-5.4', NOW - 3 * HOUR, 4, 0, [[bucketOf(80), 4]]),
    sample('gamma-5.4', NOW - 24 * HOUR, 9, 0, [[bucketOf(2000), 9]]),
    // A failure has no latency.
    sample('gamma-5.4', NOW - 2 * HOUR, 1, 1),
  ]);
  const { key } = await h.createKey();
  t.equal((await send(h, key, 'gamma-5.4')).status, 200);

  const series = (await statusJson(h)).models.find((m) => m.id === 'gamma-5.4')?.latency_24h ?? [];
  t.equal(series.length, 24);
  t.equal(series[0]?.start, '2026-11-14T13:00:00.000Z', 'oldest first: 23 hours before the current one');
  t.equal(series[23]?.start, '2026-11-15T12:00:00.000Z', 'the current hour last');
  t.same(series[20], { start: '2026-11-15T09:00:00.000Z', p50: 87.5, p95: 98.8 }, 'interpolated inside (75, 100]');
  t.same(series[21], { start: '2026-11-15T10:00:00.000Z', p50: null, p95: null }, 'an hour with only failures');
  t.ok(series[23]?.p50 !== null && (series[23]?.p50 ?? 0) <= (series[23]?.p95 ?? 0), 'the call just served');
  t.equal(series.filter((p) => p.p50 !== null).length, 2, 'the hour before the series is not in it');
});

t.test('/status: 90 bars per model with their date, uptime and requests, the sparkline, incidents on their days', async (t) => {
  const clock = new FakeClock(NOW);
  const h = await startHarness(t, { clock, env: { GATEWAY_RETRY_MAX: '0' }, simulatedFamilies: ['gamma'] });
  const status = await h.store.extend(STATUS_STATE);
  await status.record([
    sample('gamma-5.4', TODAY - 2 * DAY, 1000, 20),
    // Latency five hours ago alone, then two hours ago and one hour ago: a dot, then a line up to the current hour's call.
    sample('gamma-5.4', NOW - 5 * HOUR, 2, 0, [[bucketOf(50), 2]]),
    sample('gamma-5.4', NOW - 2 * HOUR, 2, 0, [[bucketOf(50), 2]]),
    sample('gamma-5.4', NOW - HOUR, 2, 0, [[bucketOf(300), 2]]),
  ]);
  const { key } = await h.createKey();
  t.equal((await send(h, key, 'gamma-5.4')).status, 200);

  // An incident of gamma-5.4 from two days ago to yesterday, and one of the whole gateway today.
  clock.advance(-2 * DAY);
  const opened = (await (await h.admin('POST', '/incidents', { title: 'Slow <gamma> replies', impact: 'major', models: ['gamma-5.4'] })).json()) as {
    id: string;
  };
  clock.advance(DAY);
  t.equal((await h.admin('PATCH', `/incidents/${opened.id}`, { status: 'resolved' })).status, 200);
  clock.advance(DAY);
  t.equal((await h.admin('POST', '/incidents', { title: 'Network trouble', impact: 'critical' })).status, 201);

  const page = await statusPage(h);
  const bars = (model: string): string[] =>
    [...page.matchAll(new RegExp(`<li id="day-\\d{4}-\\d{2}-\\d{2}-${model.replaceAll('.', '\\.')}"[^>]*>`, 'g'))].map((m) => m[0]);
  for (const model of h.catalogue.models) t.equal(bars(model.id).length, 90, `${model.id}: 90 bars`);
  t.equal([...page.matchAll(/<li id="day-\d{4}-\d{2}-\d{2}"/g)].length, 90, 'and 90 for all models');
  const bar = (date: string, model: string | null): string =>
    new RegExp(`<li id="day-${date}${model ? `-${model.replaceAll('.', '\\.')}` : ''}"[^>]*>`).exec(page)?.[0] ?? '';

  t.match(bar('2026-11-13', 'gamma-5.4'), /class="u-poor inc inc-major"/, '98 % uptime, and the incident marked in its impact');
  t.match(bar('2026-11-13', 'gamma-5.4'), 'title="2026-11-13: 98.00 % uptime, 1000 requests; incident (major): Slow &#60;gamma&#62; replies"');
  t.match(bar('2026-11-13', 'gamma-5.4'), 'aria-label="2026-11-13: 98.00 % uptime, 1000 requests; incident (major): Slow &#60;gamma&#62; replies"');
  t.match(bar('2026-11-14', 'gamma-5.4'), /class="u-none inc inc-major"/, 'the day it was resolved, without traffic');
  t.match(bar('2026-11-14', 'gamma-5.4'), 'title="2026-11-14: no data; incident (major): Slow &#60;gamma&#62; replies"');
  t.match(bar('2026-11-15', 'gamma-5.4'), /class="u-good inc inc-critical"/, 'today: the gateway-wide incident, the worst of the day');
  t.match(bar('2026-11-12', 'gamma-5.4'), /class="u-none"/, 'the day before: no incident');
  t.match(bar('2026-11-13', 'gamma-5.2'), /class="u-none"/, "another model's incident is not this one's");
  t.match(bar('2026-11-15', 'gamma-5.2'), /inc-critical/, 'a gateway-wide incident marks every model');
  t.match(bar('2026-11-13', null), /class="u-poor inc inc-major"/, 'all models: every incident');

  // The incident list links to the bar of the day each began.
  t.match(page, new RegExp(`data-incident="${opened.id}"[\\s\\S]*?<a href="#day-2026-11-13-gamma-5\\.4">gamma-5\\.4, 2026-11-13</a>`));
  t.match(page, /<a href="#day-2026-11-15">all models, 2026-11-15<\/a>/);

  // The sparkline: one per model, with its figures in words.
  t.equal([...page.matchAll(/<figure class="spark">/g)].length, h.catalogue.models.length);
  t.match(page, /<svg [^>]*role="img" aria-label="Latency of gamma-5\.4 per hour, the last 24 hours: p50 [\d.]+ (ms|s) to [\d.]+ (ms|s), p95 up to/);
  const spark = /data-history="gamma-5\.4"[\s\S]*?<\/figure>/.exec(page)?.[0] ?? '';
  t.equal([...spark.matchAll(/<circle class="p50"/g)].length, 1, 'the lone hour a dot');
  const lines = [...spark.matchAll(/<polyline class="p50" points="([^"]*)"/g)].map((m) => (m[1] ?? '').split(' ').length);
  t.same(lines, [3], 'the three hours in a row one line');
  t.match(page, 'aria-label="Latency of gamma-5.2 per hour, the last 24 hours: no successful requests"');
  t.notMatch(page, /<script/i, 'no script');

  // docs/operations.md shows the shape of /status.json: every member it names, and only those.
  const doc = readFileSync('docs/operations.md', 'utf8');
  const example = /### `\/status\.json`[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
  t.same(members(JSON.parse(example)), members(await statusJson(h)), "docs/operations.md's /status.json example has the report's shape");
});

t.test('the public page and status.json name no key, deployment or cost', async (t) => {
  const [east, west] = [await mockDeployment(t), await mockDeployment(t)];
  const h = await startHarness(t, {
    env: { GAMMA_BASE_URL: '', GAMMA_API_KEY: '', GAMMA_KEY_0: 'gamma-east-credential', GAMMA_KEY_1: 'gamma-west-credential' },
    configure: (config) => {
      config.upstreams['gamma'] = [
        { name: 'deploy-east-zz', base_url: east.url, api_key_env: 'GAMMA_KEY_0', weight: 1 },
        { name: 'deploy-west-zz', base_url: west.url, api_key_env: 'GAMMA_KEY_1', weight: 1 },
      ];
    },
  });
  const keys = [await h.createKey({ name: 'team-red-key' }), await h.createKey({ name: 'team-blue-key' })];
  for (let i = 0; i < 8; i++) t.equal((await send(h, (keys[i % 2] as { key: string }).key, 'gamma-5.4')).status, 200);
  t.ok(east.calls > 0 && west.calls > 0, 'both deployments answered');
  t.equal((await h.admin('POST', '/incidents', { title: 'Slow replies', models: ['gamma-5.4'] })).status, 201);

  const json = JSON.stringify(await statusJson(h));
  const page = await statusPage(h);
  t.equal((await statusJson(h)).models.find((m) => m.id === 'gamma-5.4')?.days.at(-1)?.requests, 8);
  for (const text of [page, json]) {
    for (const secret of [...keys.flatMap((k) => [k.id, k.key]), 'team-red-key', 'team-blue-key', 'deploy-east-zz', 'deploy-west-zz', east.url, west.url]) {
      t.notMatch(text, secret, `no ${secret}`);
    }
    t.notMatch(text, /cost|usd|\$/i, 'no cost');
    t.notMatch(text, /gamma-(east|west)-credential/, 'no credential');
  }
});

/** The member paths of a JSON value (`models[].days[].date`), each with its own path, so that a `null` and an object agree; an object of endpoint names is one member. */
function members(value: unknown, path = ''): string[] {
  const inside = Array.isArray(value)
    ? value.flatMap((item) => members(item, `${path}[]`))
    : value !== null && typeof value === 'object' && !path.endsWith('by_endpoint')
      ? Object.entries(value).flatMap(([name, member]) => members(member, path ? `${path}.${name}` : name))
      : [];
  return [...new Set([path, ...inside])].sort();
}

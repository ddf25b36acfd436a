import t from 'tap';
import { uptimeClass } from '../../plugins/status/history-page.js';
import { DAY_MS, dailySeries, HISTORY_DAYS, hourlyLatency, incidentDates } from '../../plugins/status/history.js';
import { bucketOf, LATENCY_BOUNDS_MS, quantile } from '../../plugins/status/latency-buckets.js';
import { MinuteRecorder } from '../../plugins/status/minute-recorder.js';
import { formatMs, formatUptime } from '../../plugins/status/wording.js';
import type { StatusSample, StatusStore } from '../../plugins/status/store/status.js';

/** The status page's figures without a gateway: buckets, quantiles, their wording, the minute recorder (the page itself: test/e2e/status.test.ts). */

t.test('latency buckets and quantiles', async (t) => {
  t.equal(bucketOf(0.3), 0);
  t.equal(bucketOf(5), 0);
  t.equal(bucketOf(5.1), 1);
  t.equal(bucketOf(119_999), LATENCY_BOUNDS_MS.length - 1);
  t.equal(bucketOf(500_000), LATENCY_BOUNDS_MS.length, 'overflow bucket');
  t.equal(quantile(new Map(), 0.5), null);
  // 100 requests: 50 in (0, 5], 40 in (100, 150], 10 in (1000, 1500].
  const counts = new Map([
    [0, 50],
    [bucketOf(120), 40],
    [bucketOf(1200), 10],
  ]);
  t.equal(quantile(counts, 0.5), 5, 'p50 at the top of the first bucket');
  t.equal(quantile(counts, 0.7), 100 + (20 / 40) * 50, 'interpolated inside (100, 150]');
  t.equal(quantile(counts, 0.95), 1000 + (5 / 10) * 500);
  t.equal(quantile(new Map([[LATENCY_BOUNDS_MS.length, 3]]), 0.99), 120_000, 'overflow answers 120 s');
  t.equal(formatMs(3.26), '3 ms');
  t.equal(formatMs(1250), '1.25 s');
  t.equal(formatMs(15_000), '15.0 s');
  t.equal(formatMs(120_000), '≥ 120 s');
  t.equal(formatUptime(null), 'no data');
  t.equal(formatUptime(1), '100.00 %');
  t.equal(formatUptime(0.99999), '99.99 %', 'rounded down: a failure never shows as 100 %');
});

t.test('figures that could not be written (the database unreachable) wait for the next flush', async (t) => {
  const written: StatusSample[][] = [];
  let down = true;
  const store = {
    record: async (samples: readonly StatusSample[]) => {
      if (down) throw new Error('unreachable');
      written.push([...samples]);
    },
  } as unknown as StatusStore;
  const recorder = new MinuteRecorder(store);
  recorder.record('gamma-5.4', 'chat.completions', 0, false, 12);
  await t.rejects(recorder.flush(), /unreachable/);
  recorder.record('gamma-5.4', 'responses', 1000, true, null);
  down = false;
  await recorder.flush();
  t.same(
    written,
    [
      [
        {
          model: 'gamma-5.4',
          minute: 0,
          requests: 2,
          failures: 1,
          latency: new Map([[bucketOf(12), 1]]),
          endpoints: new Map([
            ['chat.completions', 1],
            ['responses', 1],
          ]),
        },
      ],
    ],
    'kept, and merged with the newer',
  );
  await recorder.flush();
  t.equal(written.length, 1, 'nothing twice');
});

t.test('the history: bar colours by uptime, the days an incident covers, the daily and hourly series', async (t) => {
  t.equal(uptimeClass(null), 'u-none', 'no requests: no colour of uptime');
  t.equal(uptimeClass(1), 'u-good');
  t.equal(uptimeClass(0.999), 'u-good');
  t.equal(uptimeClass(0.9989), 'u-fair');
  t.equal(uptimeClass(0.99), 'u-fair');
  t.equal(uptimeClass(0.95), 'u-poor');
  t.equal(uptimeClass(0.9499), 'u-bad');
  t.equal(uptimeClass(0), 'u-bad');

  t.same(incidentDates('2026-11-13T23:59:00.000Z', '2026-11-15T00:00:00.000Z', '2026-11-20T00:00:00.000Z'), ['2026-11-13', '2026-11-14', '2026-11-15']);
  t.same(incidentDates('2026-11-15T10:00:00.000Z', null, '2026-11-15T11:00:00.000Z'), ['2026-11-15'], 'open: until now');
  const long = incidentDates('2025-01-01T00:00:00.000Z', null, '2026-11-15T11:00:00.000Z');
  t.equal(long.length, HISTORY_DAYS, 'an incident open for a year: only the days of the history');
  t.equal(long.at(-1), '2026-11-15');

  const firstDay = Date.parse('2026-08-18T00:00:00Z');
  const { of, all } = dailySeries(
    [
      { model: 'a', day: firstDay, requests: 4, failures: 1 },
      { model: 'b', day: firstDay, requests: 6, failures: 0 },
      { model: 'a', day: firstDay + 89 * DAY_MS, requests: 2, failures: 2 },
    ],
    firstDay,
  );
  t.same(of('a')[0], { date: '2026-08-18', uptime: 0.75, requests: 4 });
  t.same(of('a')[89], { date: '2026-11-15', uptime: 0, requests: 2 });
  t.same(of('c')[5], { date: '2026-08-23', uptime: null, requests: 0 }, 'a model without rows: 90 days without data');
  t.same(all[0], { date: '2026-08-18', uptime: 0.9, requests: 10 });

  const firstHour = Date.parse('2026-11-14T13:00:00Z');
  const hourly = hourlyLatency([{ model: 'a', start: firstHour + 3_600_000, bucket: bucketOf(120), count: 10 }], firstHour)('a');
  t.equal(hourly.length, 24);
  t.same(hourly[0], { start: '2026-11-14T13:00:00.000Z', p50: null, p95: null });
  t.same(hourly[1], { start: '2026-11-14T14:00:00.000Z', p50: 125, p95: 147.5 });
});

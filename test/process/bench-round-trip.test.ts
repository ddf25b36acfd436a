import { performance } from 'node:perf_hooks';
import t from 'tap';
import { measureRoundTrips, roundTripLines, roundTripsFrom, type RoundTrips } from '../../bench/lib/round-trip.js';
import { startPostgres } from '../helpers/postgres.js';

// The bench's PostgreSQL round-trip probe, against a real throwaway server, and its report lines.

const positive = (value: number): boolean => Number.isFinite(value) && value > 0;

t.test('the probe measures both kinds against a real server, pacing the second', async (t) => {
  const server = await startPostgres(t);
  const url = await server.createDatabase();
  const started = performance.now();
  const trips = await measureRoundTrips(url, 20, 10);
  const elapsed = performance.now() - started;
  t.ok(positive(trips.backToBackUs) && positive(trips.pacedUs), `both medians measured: ${JSON.stringify(trips)}`);
  t.match(trips, { calls: 20, paceMs: 10 });
  t.ok(elapsed >= 20 * 10, `20 paced queries take at least 20 × 10 ms (took ${elapsed.toFixed(0)} ms)`);
  t.ok(trips.pacedUs < 10_000, 'the pause itself is not counted in a paced round trip');
});

t.test('the probe runs as a process of its own and answers over its stdout', async (t) => {
  const server = await startPostgres(t);
  const trips = await roundTripsFrom(null, await server.createDatabase(), 5, 1);
  t.ok(positive(trips.backToBackUs) && positive(trips.pacedUs), `measured in the child: ${JSON.stringify(trips)}`);
  const unreachable = 'postgres://nobody:sekrit-password@127.0.0.1:1/none';
  const error = await roundTripsFrom(null, unreachable, 5, 1).then(
    () => null,
    (e: unknown) => e as Error,
  );
  t.match(error?.message, /round-trip probe failed/, 'a server it cannot reach fails the bench loudly');
  t.notMatch(error?.message, /sekrit-password/, 'without quoting the URL it was given');
});

t.test('the report states both figures and what one or two paced round trips take of the target', async (t) => {
  t.same(roundTripLines(null, 0.5), [], 'nothing without PostgreSQL');
  const trips: RoundTrips = { backToBackUs: 83.4, pacedUs: 181.6, paceMs: 5, calls: 400 };
  const text = roundTripLines(trips, 0.5).join('\n');
  t.match(text, /83 µs one after another, 182 µs at one every 5 ms/);
  t.match(
    text,
    /one \(its ledger row; its admission granted ahead\) or two in turn \(admission, ledger row\): 0\.18 or 0\.36 ms at that pace, against the target's \+0\.5 ms/,
  );
});

import { execFile } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { median } from './stats.js';

/**
 * What one PostgreSQL round trip costs on this machine: `SELECT 1` from a client on the servers'
 * cores to the bench's server, one after another and one every `paceMs` (the open loop's pace).
 * A call on PostgreSQL waits for its ledger row's round trip, and for its admission's before it
 * when no admission was granted ahead (src/store/granted-admissions.ts): once or twice the paced
 * figure is what that waiting takes of each call at that pace, whatever the gateway does.
 */

export interface RoundTrips {
  /** Each query sent as soon as the one before it answered: p50, µs. */
  backToBackUs: number;
  /** One query every `paceMs` (both sides idle in between, as at the open loop's rate): p50, µs. */
  pacedUs: number;
  paceMs: number;
  calls: number;
}

const URL_VARIABLE = 'BENCH_ROUND_TRIP_URL';

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Measures in this process (connects, warms up, `calls` of each kind, disconnects). */
export async function measureRoundTrips(url: string, calls: number, paceMs: number): Promise<RoundTrips> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const once = async (): Promise<number> => {
      const started = performance.now();
      await client.query('SELECT 1');
      return (performance.now() - started) * 1000;
    };
    for (let i = 0; i < 50; i++) await once();
    const backToBack: number[] = [];
    for (let i = 0; i < calls; i++) backToBack.push(await once());
    const paced: number[] = [];
    for (let i = 0; i < calls; i++) {
      await pause(paceMs);
      paced.push(await once());
    }
    return { backToBackUs: median(backToBack), pacedUs: median(paced), paceMs, calls };
  } finally {
    await client.end();
  }
}

/** The report's lines: both medians, and the share of the added-p50 target (`targetMs` over SQLite) a call's one or two round trips take. */
export function roundTripLines(trips: RoundTrips | null, targetMs: number): string[] {
  if (!trips) return [];
  const { backToBackUs, pacedUs, paceMs, calls } = trips;
  return [
    `PostgreSQL round trip (SELECT 1 from the servers' cores, p50 of ${calls}): ${backToBackUs.toFixed(0)} µs one after another, ${pacedUs.toFixed(0)} µs at one every ${paceMs} ms (the open loop's pace);`,
    `  a call on PostgreSQL waits for one (its ledger row; its admission granted ahead) or two in turn (admission, ledger row): ${(pacedUs / 1000).toFixed(2)} or ${((2 * pacedUs) / 1000).toFixed(2)} ms at that pace, against the target's +${targetMs} ms over SQLite`,
  ];
}

/**
 * Measures from a node process of its own on `cpus` (`taskset -c`; null: unpinned), where the
 * gateways run. It gets this process's node flags (a loader, when run from the tests' sources).
 */
export function roundTripsFrom(cpus: string | null, url: string, calls: number, paceMs: number): Promise<RoundTrips> {
  const node = [process.execPath, ...process.execArgv, fileURLToPath(import.meta.url), String(calls), String(paceMs)];
  const [command, ...args] = cpus === null ? node : ['taskset', '-c', cpus, ...node];
  // The URL goes by the environment: a command line is seen by `ps` and quoted in execFile's errors.
  const env = { ...process.env, [URL_VARIABLE]: url };
  return new Promise((resolve, reject) => {
    execFile(command as string, args, { timeout: 60_000, env }, (error, stdout) => {
      if (error) reject(new Error(`bench: the PostgreSQL round-trip probe failed: ${error.message}`));
      else resolve(JSON.parse(stdout) as RoundTrips);
    });
  });
}

// Run as a script: `BENCH_ROUND_TRIP_URL=<url> node round-trip.js <calls> <paceMs>` prints the RoundTrips as JSON.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [calls, paceMs] = process.argv.slice(2);
  process.stdout.write(JSON.stringify(await measureRoundTrips(process.env[URL_VARIABLE] ?? '', Number(calls), Number(paceMs))));
}

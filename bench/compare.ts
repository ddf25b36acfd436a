import { performance } from 'node:perf_hooks';
import { treeCpuMs } from './lib/processes.js';
import type { Bench } from './lib/setup.js';
import { roundTripsFrom, type RoundTrips } from './lib/round-trip.js';
import { roundOrder, type Target } from './lib/targets.js';
import { CLOSED_LOOP_SCENARIOS, requestFor, type Scenario } from './lib/workload.js';
import { failureCount, type ClosedLoopResult, type LoadJob, type LoadResult, type OpenLoopResult } from './load/protocol.js';

/**
 * The comparison: every scenario against direct, floor and each gateway, interleaved in rounds
 * (direct, floor, gateway, [other gateways,] direct, floor, …) so that drift on a shared machine
 * hits them all alike; the gateways' order rotates from round to round (targets.ts roundOrder). Each measurement also records the CPU time the processes used, per answer.
 */

export interface CompareSettings {
  rounds: number;
  /** Seconds of each closed-loop measurement. */
  closedS: number;
  /** Seconds of each open-loop measurement. */
  openS: number;
  /** Seconds of closed loop per (target, scenario) before the first round, for the JIT and the pools. */
  warmS: number;
  connections: number;
  /** Requests/s of the open loop. */
  rate: number;
}

/** The open-loop scenarios: gamma, both kinds (time to first byte is read on the stream). */
export const OPEN_LOOP_SCENARIOS: readonly Scenario[] = CLOSED_LOOP_SCENARIOS.filter((s) => s.family === 'gamma');

export interface CpuUse {
  /** CPU µs the proxy under test (floor, or a gateway with all its workers) used per correct answer; null for direct. */
  proxyUsPerAnswer: number | null;
  /** CPU µs the PostgreSQL server (every backend) used per correct answer, for a gateway on PostgreSQL; else null. */
  storeUsPerAnswer: number | null;
  /** CPU µs the simulator process used per correct answer. */
  simUsPerAnswer: number;
  /** Share of one core the load generator used (≈ 1: it, not the target, may be the limit). */
  loadShare: number;
}

export interface Measurement<R extends LoadResult> {
  round: number;
  scenario: Scenario['id'];
  /** The target's id. */
  target: string;
  result: R;
  cpu: CpuUse;
}

export interface Comparison {
  settings: CompareSettings;
  targets: Target[];
  closed: Array<Measurement<ClosedLoopResult>>;
  open: Array<Measurement<OpenLoopResult>>;
  /** Failed requests during the warm-up (not measured, but still errors). */
  warmUpFailures: number;
  /** With a gateway on PostgreSQL: the server's round trip from the servers' cores, measured before the warm-up. */
  storeRoundTrips: RoundTrips | null;
}

/** Round trips per kind of the probe: 400 paced at 200 requests/s take 2 s. */
const ROUND_TRIP_CALLS = 400;

function proxyPid(bench: Bench, target: Target): number | null {
  if (target.kind === 'floor') return bench.floor?.pid ?? null;
  return bench.gateways.find((g) => g.target.id === target.id)?.process.pid ?? null;
}

/** A load job on `target`, with the CPU its processes used. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- R is the result the job's type yields: the load process answers in untyped JSON.
export function measure<R extends LoadResult>(bench: Bench, target: Target, job: LoadJob): Promise<{ result: R; cpu: CpuUse }> {
  return measureOn<R>(bench, proxyPid(bench, target), target.variant?.store === 'postgres' ? (bench.postgres?.pid ?? null) : null, job);
}

/** A load job, with the CPU used by `proxy` (null: none, as for direct), the store server (null: none), the simulators and the load generator. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- as measure's.
export async function measureOn<R extends LoadResult>(
  bench: Bench,
  proxy: number | null,
  store: number | null,
  job: LoadJob,
): Promise<{ result: R; cpu: CpuUse }> {
  const pids = [proxy, bench.sims.pid, bench.load.process.pid, store];
  const before = pids.map((pid) => (pid === null ? NaN : treeCpuMs(pid)));
  const started = performance.now();
  const result = await bench.load.run<R>(job);
  bench.group.assertAlive();
  const wallMs = performance.now() - started;
  const [proxyMs, simMs, loadMs, storeMs] = pids.map((pid, i) => (pid === null ? NaN : treeCpuMs(pid) - (before[i] as number))) as [
    number,
    number,
    number,
    number,
  ];
  const perAnswer = (ms: number): number => (ms * 1000) / Math.max(1, result.ok);
  return {
    result,
    cpu: {
      proxyUsPerAnswer: proxy === null ? null : perAnswer(proxyMs),
      storeUsPerAnswer: store === null ? null : perAnswer(storeMs),
      simUsPerAnswer: perAnswer(simMs),
      loadShare: loadMs / wallMs,
    },
  };
}

/** For the progress line: what failed, if anything. */
const failed = (result: LoadResult): string => (failureCount(result.failures) ? ` — FAILED ${JSON.stringify(result.failures)}` : '');

const closedJob = (bench: Bench, scenario: Scenario, target: Target, settings: CompareSettings, durationS: number): LoadJob => ({
  type: 'closed',
  request: requestFor(scenario, target, bench.origins),
  connections: settings.connections,
  durationS,
});

/**
 * The scenarios another checkout's gateway (`--against`) does not serve — an older commit may
 * lack an endpoint — probed with one request each and left out of its rounds (the tables show —).
 */
async function unservedScenarios(bench: Bench, progress: (line: string) => void): Promise<Set<string>> {
  const unserved = new Set<string>();
  for (const target of bench.targets) {
    if (!target.variant?.checkout) continue;
    for (const scenario of CLOSED_LOOP_SCENARIOS) {
      const { url, headers, body } = requestFor(scenario, target, bench.origins);
      const res = await fetch(url, { method: 'POST', headers, body });
      await res.arrayBuffer();
      if (res.status === 200) continue;
      unserved.add(`${target.id} ${scenario.id}`);
      progress(`${target.id} answers ${scenario.id} with ${res.status}: left out of its rounds`);
    }
  }
  return unserved;
}

export async function compare(bench: Bench, settings: CompareSettings, progress: (line: string) => void): Promise<Comparison> {
  const unserved = await unservedScenarios(bench, progress);
  const serves = (target: Target, scenario: Scenario): boolean => !unserved.has(`${target.id} ${scenario.id}`);
  let storeRoundTrips: RoundTrips | null = null;
  if (bench.postgres) {
    progress("PostgreSQL round trips from the servers' cores, one after another and at the open loop's pace");
    storeRoundTrips = await roundTripsFrom(
      bench.plan.pinned ? bench.plan.servers : null,
      await bench.postgres.createDatabase(),
      ROUND_TRIP_CALLS,
      1000 / settings.rate,
    );
  }
  progress(`warm-up: ${settings.warmS} s of each scenario on each target`);
  const comparison: Comparison = { settings, targets: bench.targets, closed: [], open: [], warmUpFailures: 0, storeRoundTrips };
  for (const target of bench.targets) {
    for (const scenario of CLOSED_LOOP_SCENARIOS.filter((s) => serves(target, s))) {
      const warm = await bench.load.run<ClosedLoopResult>(closedJob(bench, scenario, target, settings, settings.warmS));
      bench.group.assertAlive();
      comparison.warmUpFailures += failureCount(warm.failures);
    }
  }
  for (let round = 1; round <= settings.rounds; round++) {
    const order = roundOrder(bench.targets, round);
    for (const scenario of CLOSED_LOOP_SCENARIOS) {
      for (const target of order.filter((t) => serves(t, scenario))) {
        const measured = await measure<ClosedLoopResult>(bench, target, closedJob(bench, scenario, target, settings, settings.closedS));
        comparison.closed.push({ round, scenario: scenario.id, target: target.id, ...measured });
        progress(
          `round ${round}/${settings.rounds} closed ${scenario.id.padEnd(12)} ${target.id.padEnd(18)} ${Math.round(measured.result.rps)} req/s${failed(measured.result)}`,
        );
      }
    }
    for (const scenario of OPEN_LOOP_SCENARIOS) {
      for (const target of order.filter((t) => serves(t, scenario))) {
        const request = requestFor(scenario, target, bench.origins);
        const measured = await measure<OpenLoopResult>(bench, target, { type: 'open', requests: [request], rate: settings.rate, durationS: settings.openS });
        comparison.open.push({ round, scenario: scenario.id, target: target.id, ...measured });
        progress(
          `round ${round}/${settings.rounds} open   ${scenario.id.padEnd(12)} ${target.id.padEnd(18)} p50 ${measured.result.total.p50.toFixed(2)} ms${failed(measured.result)}`,
        );
      }
    }
  }
  return comparison;
}

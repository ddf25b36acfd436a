import type { Comparison, Measurement } from './compare.js';
import { OPEN_LOOP_SCENARIOS } from './compare.js';
import { med, minus, paired, ratio } from './figures.js';
import { num, signedMs, table, verdict, type Row } from './lib/table.js';
import { gatewayPairs, gatewaysOf, type Pair, type Target } from './lib/targets.js';
import { roundTripLines } from './lib/round-trip.js';
import { CLOSED_LOOP_SCENARIOS } from './lib/workload.js';
import type { ClosedLoopResult, OpenLoopResult } from './load/protocol.js';

/**
 * Gateways against gateways, in the same run: on PostgreSQL against on SQLite (the same number
 * of workers), with the issue's targets; N workers against one (the same store), and this tree
 * against each other checkout's gateway (`--against`), and those checkouts against each other, without.
 */

/** PostgreSQL gateway requests/s as a share of the SQLite gateway's, at least. */
export const POSTGRES_THROUGHPUT = 0.8;
/** The most the PostgreSQL gateway's open-loop added p50 may exceed the SQLite gateway's, ms. */
export const POSTGRES_ADDED_P50_MS = 0.5;

const rps = (m: Measurement<ClosedLoopResult>): number => m.result.rps;
const p50 = (m: Measurement<OpenLoopResult>): number => m.result.total.p50;

function throughputRows(c: Comparison, list: readonly Pair[]): Row[] {
  return CLOSED_LOOP_SCENARIOS.map((scenario) => [
    scenario.label,
    ...list.map((pair) => {
      const value = paired(c.closed, scenario.id, [pair.subject.id, pair.base.id], rps, ratio);
      return pair.judged ? `${num(value, 2)} ${verdict(value >= POSTGRES_THROUGHPUT)}` : num(value, 2);
    }),
  ]);
}

function latencyRows(c: Comparison, list: readonly Pair[]): Row[] {
  const added = (scenario: (typeof OPEN_LOOP_SCENARIOS)[number], target: Target): number => paired(c.open, scenario.id, [target.id, 'direct'], p50, minus);
  return OPEN_LOOP_SCENARIOS.map((scenario) => [
    scenario.label,
    ...list.map((pair) => {
      const subject = added(scenario, pair.subject);
      const over = subject - added(scenario, pair.base);
      const judged = pair.judged ? ` ${verdict(over <= POSTGRES_ADDED_P50_MS)}` : '';
      return `${signedMs(subject)} vs ${signedMs(added(scenario, pair.base))} (${signedMs(over)})${judged}`;
    }),
  ]);
}

/** Empty when the run had one gateway. */
export function variantsSection(c: Comparison): string[] {
  const list = gatewayPairs(gatewaysOf(c.targets));
  if (!list.length) return [];
  const heading = list.map((pair) => `${pair.subject.label} ÷ ${pair.base.label}`);
  const judgedNote = list.some((pair) => pair.judged)
    ? ` (PostgreSQL targets: ≥ ${POSTGRES_THROUGHPUT.toFixed(2)}× the requests/s, added p50 within +${POSTGRES_ADDED_P50_MS} ms)`
    : '';
  const gatewayCpu = (target: Target): number => med(c.closed, 'gamma-json', target.id, (m) => (m.cpu.proxyUsPerAnswer ?? NaN) + (m.cpu.storeUsPerAnswer ?? 0));
  return [
    ...roundTripLines(c.storeRoundTrips, POSTGRES_ADDED_P50_MS),
    `Gateways compared in the same run, paired per round: ${list.map((pair) => pair.what).join('; ')}${judgedNote}`,
    ...table([['closed loop requests/s', ...heading]], throughputRows(c, list)),
    ...table([['open loop added p50 ms (a vs b, difference)', ...heading]], latencyRows(c, list)),
    `CPU per gamma non-streamed answer, the gateway's processes (+ its PostgreSQL server's, if on PostgreSQL): ${gatewaysOf(c.targets)
      .map((target) => `${target.label} ${num(gatewayCpu(target))} µs`)
      .join(', ')}`,
  ];
}

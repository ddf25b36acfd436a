import type { Comparison, Measurement } from './compare.js';
import { OPEN_LOOP_SCENARIOS } from './compare.js';
import { failureCount, type ClosedLoopResult, type Failures, type LoadResult, type OpenLoopResult } from './load/protocol.js';
import { median } from './lib/stats.js';
import { CLOSED_LOOP_SCENARIOS, TARGETS, type ScenarioId, type Target } from './lib/workload.js';

/**
 * The table of a comparison. Every figure is the median across rounds. Ratios and differences
 * are paired within a round (gateway of round r against floor/direct of round r), then the
 * median is taken, so drift between rounds cancels.
 */

/** The targets: gateway requests/s as a share of the floor's, per closed-loop scenario. */
const THROUGHPUT_TARGETS: Record<ScenarioId, number> = { 'gamma-json': 0.5, 'gamma-stream': 0.6, 'alpha-json': 0.4, 'alpha-stream': 0.4 };
/** Open loop: the most the gateway may add over direct, ms. */
const ADDED_P50_MS = 1;
const ADDED_P99_MS = 3;
const ADDED_TTFB_P50_MS = 1;

type Row = string[];

/** Columns padded to their widest cell: the first left-aligned, the rest right-aligned. */
function table(header: Row[], rows: Row[]): string[] {
  const all = [...header, ...rows];
  const widths = (all[0] ?? []).map((_, column) => Math.max(...all.map((row) => (row[column] ?? '').length)));
  return all.map((row) => row.map((cell, column) => (column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ').trimEnd());
}

const num = (value: number, digits = 0): string => (Number.isFinite(value) ? value.toFixed(digits) : '—');
const ms = (value: number): string => num(value, value < 10 ? 2 : 1);
const signedMs = (value: number): string => (Number.isFinite(value) ? `${value >= 0 ? '+' : ''}${value.toFixed(2)}` : '—');
const verdict = (met: boolean): string => (met ? 'met' : 'MISSED');

function pick<R extends LoadResult>(list: Array<Measurement<R>>, scenario: ScenarioId, target: Target): Array<Measurement<R>> {
  return list.filter((m) => m.scenario === scenario && m.target === target);
}

/** The median of `value` over the rounds of one scenario and target. */
function med<R extends LoadResult>(list: Array<Measurement<R>>, scenario: ScenarioId, target: Target, value: (m: Measurement<R>) => number): number {
  return median(pick(list, scenario, target).map(value));
}

/** The median over rounds of `combine(gateway, other)` with both from the same round. */
function paired<R extends LoadResult>(
  list: Array<Measurement<R>>,
  scenario: ScenarioId,
  other: Target,
  value: (m: Measurement<R>) => number,
  combine: (gateway: number, other: number) => number,
): number {
  const others = pick(list, scenario, other);
  return median(
    pick(list, scenario, 'gateway').flatMap((gateway) => {
      const partner = others.find((m) => m.round === gateway.round);
      return partner ? [combine(value(gateway), value(partner))] : [];
    }),
  );
}

function closedSection(c: Comparison): string[] {
  const { settings } = c;
  const rps = (m: Measurement<ClosedLoopResult>): number => m.result.rps;
  const rows = CLOSED_LOOP_SCENARIOS.map((scenario) => {
    const id = scenario.id;
    const ratio = paired(c.closed, id, 'floor', rps, (g, f) => g / f);
    const latency = (target: Target): string =>
      `${ms(med(c.closed, id, target, (m) => m.result.latency.p50))} / ${ms(med(c.closed, id, target, (m) => m.result.latency.p99))}`;
    return [
      scenario.label,
      ...TARGETS.map((target) => num(med(c.closed, id, target, rps))),
      num(ratio, 2),
      `≥ ${THROUGHPUT_TARGETS[id].toFixed(2)} ${verdict(ratio >= THROUGHPUT_TARGETS[id])}`,
      ...TARGETS.map(latency),
    ];
  });
  return [
    `Closed loop: ${settings.connections} connections, ${settings.closedS} s per run; requests/s of correct answers; latency = request → last byte`,
    ...table(
      [
        ['', 'requests/s', '', '', 'gateway/floor', '', 'p50 / p99 ms', '', ''],
        ['scenario', 'direct', 'floor', 'gateway', 'ratio', 'target', 'direct', 'floor', 'gateway'],
      ],
      rows,
    ),
  ];
}

function cpuSection(c: Comparison): string[] {
  const rows = CLOSED_LOOP_SCENARIOS.map((scenario) => {
    const id = scenario.id;
    const proxy = (target: Target): string => num(med(c.closed, id, target, (m) => m.cpu.proxyUsPerAnswer ?? NaN));
    const load = (target: Target): string => num(med(c.closed, id, target, (m) => m.cpu.loadShare) * 100);
    return [scenario.label, num(med(c.closed, id, 'direct', (m) => m.cpu.simUsPerAnswer)), proxy('floor'), proxy('gateway'), ...TARGETS.map(load)];
  });
  return [
    'CPU per answer in the closed loop (µs of CPU time, all threads; /proc, 10 ms ticks) and the load generator\'s use of its core',
    ...table(
      [
        ['', 'µs per answer', '', '', 'load generator % of a core', '', ''],
        ['scenario', 'simulator', 'floor', 'gateway', 'direct', 'floor', 'gateway'],
      ],
      rows,
    ),
  ];
}

function openSection(c: Comparison): string[] {
  const { settings } = c;
  const p50 = (m: Measurement<OpenLoopResult>): number => m.result.total.p50;
  const p99 = (m: Measurement<OpenLoopResult>): number => m.result.total.p99;
  const ttfb = (m: Measurement<OpenLoopResult>): number => m.result.ttfb.p50;
  const minus = (g: number, d: number): number => g - d;
  const rows = OPEN_LOOP_SCENARIOS.map((scenario) => {
    const id = scenario.id;
    const addedP50 = paired(c.open, id, 'direct', p50, minus);
    const addedP99 = paired(c.open, id, 'direct', p99, minus);
    const addedTtfb = paired(c.open, id, 'direct', ttfb, minus);
    return [
      scenario.label,
      ...TARGETS.map((target) => `${ms(med(c.open, id, target, p50))} / ${ms(med(c.open, id, target, p99))}`),
      `${signedMs(addedP50)} ${verdict(addedP50 <= ADDED_P50_MS)}`,
      `${signedMs(addedP99)} ${verdict(addedP99 <= ADDED_P99_MS)}`,
      ...TARGETS.map((target) => ms(med(c.open, id, target, ttfb))),
      scenario.stream ? `${signedMs(addedTtfb)} ${verdict(addedTtfb <= ADDED_TTFB_P50_MS)}` : `${signedMs(addedTtfb)}`,
    ];
  });
  const perRun = Math.round(settings.rate * settings.openS);
  const late = Math.max(...c.open.map((m) => m.result.lateP99));
  return [
    `Open loop: ${settings.rate} requests/s evenly spaced, ${settings.openS} s (${perRun} requests) per run; total = request → last byte, TTFB = request → first body byte`,
    ...table(
      [
        ['', 'total p50 / p99 ms', '', '', 'gateway − direct', '', 'TTFB p50 ms', '', '', 'gateway − direct'],
        ['scenario', 'direct', 'floor', 'gateway', `p50 (≤ ${ADDED_P50_MS})`, `p99 (≤ ${ADDED_P99_MS})`, 'direct', 'floor', 'gateway', `TTFB p50 (≤ ${ADDED_TTFB_P50_MS}, streams)`],
      ],
      rows,
    ),
    `(the generator started its requests at most ${ms(late)} ms late at p99 of any run)`,
  ];
}

/** Failed requests per target across every measurement, plus the warm-up's. */
export function failures(c: Comparison): { total: number; lines: string[] } {
  const lines: string[] = [];
  let total = c.warmUpFailures;
  for (const target of TARGETS) {
    const sum: Failures = { socket: 0, timeouts: 0, non200: 0, wrong: 0 };
    for (const m of [...c.closed, ...c.open].filter((x) => x.target === target)) {
      for (const kind of ['socket', 'timeouts', 'non200', 'wrong'] as const) sum[kind] += m.result.failures[kind];
      sum.first ??= m.result.failures.first;
    }
    const count = failureCount(sum);
    total += count;
    if (count) {
      lines.push(`  ${target}: ${count} failed (socket errors ${sum.socket}, timeouts ${sum.timeouts}, non-200 ${sum.non200}, wrong answers ${sum.wrong})`);
      lines.push(`    first: ${sum.first ?? '?'}`);
    }
  }
  if (c.warmUpFailures) lines.push(`  warm-up: ${c.warmUpFailures} failed`);
  return { total, lines };
}

export function comparisonReport(c: Comparison): string[] {
  const { settings } = c;
  const answered = c.closed.reduce((sum, m) => sum + m.result.ok, 0) + c.open.reduce((sum, m) => sum + m.result.ok, 0);
  const failed = failures(c);
  return [
    `Medians of ${settings.rounds} rounds; in each round every scenario runs on direct, floor, gateway in turn.`,
    '',
    ...closedSection(c),
    '',
    ...openSection(c),
    '',
    ...cpuSection(c),
    '',
    failed.total
      ? `!!! ERRORS: ${failed.total} requests failed or were answered wrongly — the figures above are not trustworthy !!!\n${failed.lines.join('\n')}`
      : `Errors: none (${answered} answers checked: status 200, the reply complete, streams ending with [DONE] / message_stop).`,
  ];
}

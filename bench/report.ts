import type { Comparison, Measurement } from './compare.js';
import { OPEN_LOOP_SCENARIOS } from './compare.js';
import { med, minus, paired, ratio } from './figures.js';
import { ms, num, signedMs, spanning, table, withVerdict, type Row } from './lib/table.js';
import { gatewaysOf, type Target } from './lib/targets.js';
import { CLOSED_LOOP_SCENARIOS, type ScenarioId } from './lib/workload.js';
import { failureCount, type ClosedLoopResult, type Failures, type OpenLoopResult } from './load/protocol.js';
import { ingressSection } from './report-ingress.js';
import { variantsSection } from './report-variants.js';

/**
 * The tables of a comparison. Every figure is the median across rounds. Ratios and differences
 * are paired within a round (a gateway of round r against floor/direct of round r), then the
 * median is taken, so drift between rounds cancels.
 */

/** The targets: gateway requests/s as a share of the floor's, per closed-loop scenario. */
export const THROUGHPUT_TARGETS: Record<ScenarioId, number> = {
  'gamma-json': 0.5,
  'gamma-stream': 0.6,
  'alpha-json': 0.4,
  'alpha-stream': 0.4,
  'responses-json': 0.5,
  'responses-stream': 0.6,
  'responses-unstored-json': 0.5,
  'responses-unstored-stream': 0.6,
};
/** Open loop: the most a gateway may add over direct, ms. */
export const ADDED_P50_MS = 1;
export const ADDED_P99_MS = 3;
export const ADDED_TTFB_P50_MS = 1;

const rps = (m: Measurement<ClosedLoopResult>): number => m.result.rps;

function closedSection(c: Comparison): string[] {
  const { settings, targets } = c;
  const gateways = gatewaysOf(targets);
  const hasFloor = targets.some((t) => t.kind === 'floor');
  const rows = CLOSED_LOOP_SCENARIOS.map((scenario): Row => {
    const id = scenario.id;
    const latency = (target: Target): string =>
      `${ms(med(c.closed, id, target.id, (m) => m.result.latency.p50))} / ${ms(med(c.closed, id, target.id, (m) => m.result.latency.p99))}`;
    const vsFloor = (gateway: Target): string => {
      const value = paired(c.closed, id, [gateway.id, 'floor'], rps, ratio);
      return withVerdict(num(value, 2), value, value >= THROUGHPUT_TARGETS[id]);
    };
    return [
      scenario.label,
      ...targets.map((target) => num(med(c.closed, id, target.id, rps))),
      ...(hasFloor ? [`≥ ${THROUGHPUT_TARGETS[id].toFixed(2)}`, ...gateways.map(vsFloor)] : []),
      ...targets.map(latency),
    ];
  });
  const labels = targets.map((t) => t.label);
  const floorColumns = hasFloor ? ['target', ...gateways.map((g) => g.label)] : [];
  return [
    `Closed loop: ${settings.connections} connections, ${settings.closedS} s per run; requests/s of correct answers; latency = request → last byte`,
    ...table(
      [
        [
          ...spanning('', 1),
          ...spanning('requests/s', targets.length),
          ...spanning(hasFloor ? 'gateway/floor' : '', floorColumns.length),
          ...spanning('p50 / p99 ms', targets.length),
        ],
        ['scenario', ...labels, ...floorColumns, ...labels],
      ],
      rows,
    ),
  ];
}

function cpuSection(c: Comparison): string[] {
  const proxies = c.targets.filter((t) => t.kind !== 'direct');
  const stores = gatewaysOf(c.targets).filter((t) => t.variant?.store === 'postgres');
  const rows = CLOSED_LOOP_SCENARIOS.map((scenario): Row => {
    const id = scenario.id;
    const us = (target: Target, pick: (m: Measurement<ClosedLoopResult>) => number | null): string => num(med(c.closed, id, target.id, (m) => pick(m) ?? NaN));
    return [
      scenario.label,
      num(med(c.closed, id, 'direct', (m) => m.cpu.simUsPerAnswer)),
      ...proxies.map((target) => us(target, (m) => m.cpu.proxyUsPerAnswer)),
      ...stores.map((target) => us(target, (m) => m.cpu.storeUsPerAnswer)),
      ...c.targets.map((target) => num(med(c.closed, id, target.id, (m) => m.cpu.loadShare) * 100)),
    ];
  });
  return [
    "CPU per answer in the closed loop (µs of CPU time, all threads and child processes; /proc, 10 ms ticks) and the load generator's use of a core",
    ...table(
      [
        [...spanning('', 1), ...spanning('µs per answer', 1 + proxies.length + stores.length), ...spanning('load generator % of a core', c.targets.length)],
        ['scenario', 'simulator', ...proxies.map((t) => t.label), ...stores.map((t) => `PostgreSQL for ${t.label}`), ...c.targets.map((t) => t.label)],
      ],
      rows,
    ),
  ];
}

function openSection(c: Comparison): string[] {
  const { settings, targets } = c;
  const gateways = gatewaysOf(targets);
  const p50 = (m: Measurement<OpenLoopResult>): number => m.result.total.p50;
  const p99 = (m: Measurement<OpenLoopResult>): number => m.result.total.p99;
  const ttfb = (m: Measurement<OpenLoopResult>): number => m.result.ttfb.p50;
  const rows = OPEN_LOOP_SCENARIOS.map((scenario): Row => {
    const id = scenario.id;
    const added = (gateway: Target, value: (m: Measurement<OpenLoopResult>) => number, limit: number, judged = true): string => {
      const difference = paired(c.open, id, [gateway.id, 'direct'], value, minus);
      return judged ? withVerdict(signedMs(difference), difference, difference <= limit) : signedMs(difference);
    };
    return [
      scenario.label,
      ...targets.map((target) => `${ms(med(c.open, id, target.id, p50))} / ${ms(med(c.open, id, target.id, p99))}`),
      ...gateways.map((g) => added(g, p50, ADDED_P50_MS)),
      ...gateways.map((g) => added(g, p99, ADDED_P99_MS)),
      ...targets.map((target) => ms(med(c.open, id, target.id, ttfb))),
      ...gateways.map((g) => added(g, ttfb, ADDED_TTFB_P50_MS, scenario.stream)),
    ];
  });
  const perRun = Math.round(settings.rate * settings.openS);
  const late = Math.max(...c.open.map((m) => m.result.lateP99));
  const labels = targets.map((t) => t.label);
  const gatewayLabels = gateways.map((g) => g.label);
  return [
    `Open loop: ${settings.rate} requests/s evenly spaced, ${settings.openS} s (${perRun} requests) per run; total = request → last byte, TTFB = request → first body byte`,
    ...table(
      [
        [
          ...spanning('', 1),
          ...spanning('total p50 / p99 ms', targets.length),
          ...spanning(`gateway − direct p50 (≤ ${ADDED_P50_MS})`, gateways.length),
          ...spanning(`p99 (≤ ${ADDED_P99_MS})`, gateways.length),
          ...spanning('TTFB p50 ms', targets.length),
          ...spanning(`gateway − direct TTFB p50 (≤ ${ADDED_TTFB_P50_MS}, streams)`, gateways.length),
        ],
        ['scenario', ...labels, ...gatewayLabels, ...gatewayLabels, ...labels, ...gatewayLabels],
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
  for (const target of c.targets) {
    const sum: Failures = { socket: 0, timeouts: 0, non200: 0, wrong: 0 };
    for (const m of [...c.closed, ...c.open].filter((x) => x.target === target.id)) {
      for (const kind of ['socket', 'timeouts', 'non200', 'wrong'] as const) sum[kind] += m.result.failures[kind];
      sum.first ??= m.result.failures.first;
    }
    const count = failureCount(sum);
    total += count;
    if (count) {
      lines.push(`  ${target.id}: ${count} failed (socket errors ${sum.socket}, timeouts ${sum.timeouts}, non-200 ${sum.non200}, wrong answers ${sum.wrong})`);
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
  const variants = variantsSection(c);
  return [
    `Medians of ${settings.rounds} rounds; in each round every scenario runs on ${c.targets.map((t) => t.label).join(', ')} in turn${gatewaysOf(c.targets).length > 1 ? ' (the gateways in an order rotated by one each round)' : ''}.`,
    '',
    ...closedSection(c),
    '',
    ...ingressSection(c),
    '',
    ...openSection(c),
    '',
    ...cpuSection(c),
    '',
    ...(variants.length ? [...variants, ''] : []),
    failed.total
      ? `!!! ERRORS: ${failed.total} requests failed or were answered wrongly — the figures above are not trustworthy !!!\n${failed.lines.join('\n')}`
      : `Errors: none (${answered} answers checked: status 200, the reply complete, streams ending with [DONE] / message_stop).`,
  ];
}

import { med, minus, pairedAcross } from '../figures.js';
import type { Bench } from '../lib/setup.js';
import { ms, num, signedMs, spanning, table, type Row } from '../lib/table.js';
import { gatewaysOf, type Target } from '../lib/targets.js';
import { CLOSED_LOOP_SCENARIOS, requestFor, type Scenario } from '../lib/workload.js';
import type { ConcurrentResult } from '../load/protocol.js';
import type { AgentPathSettings, CaseMeasurement } from './measured.js';
import { inRounds, type Rounds } from './rounds.js';
import { turnPrompt } from './streamed-turns.js';

/**
 * The concurrency sweep: 1, 4, 16 and 64 streamed gamma turns at once (20 chunks 5 ms apart,
 * each caller starting its next as its last ends), against direct, the floor and each gateway:
 * the gap between chunks p50/p99, the gateway's p99 over direct's, and the gateway's peak RSS.
 */

export const CONCURRENCY: readonly number[] = [1, 4, 16, 64];
const STREAM = CLOSED_LOOP_SCENARIOS.find((s) => s.id === 'gamma-stream') as Scenario;
const caseId = (streams: number): string => `streams-${streams}`;

type Measured = CaseMeasurement<ConcurrentResult>;

export function concurrency(bench: Bench, settings: AgentPathSettings, progress: (line: string) => void): Promise<Rounds<ConcurrentResult>> {
  return inRounds<ConcurrentResult>(
    bench,
    settings,
    {
      name: 'streams at once',
      ids: CONCURRENCY.map(caseId),
      job: (id, target, durationS) => ({
        type: 'concurrent',
        request: requestFor(STREAM, target, bench.origins, turnPrompt()),
        streams: Number(id.slice('streams-'.length)),
        durationS,
      }),
      figure: (result) => `gap p99 ${ms(result.gap?.p99 ?? NaN)} ms`,
      peakRss: true,
    },
    progress,
  );
}

export function concurrencyReport(measurements: readonly Measured[], targets: readonly Target[], settings: AgentPathSettings): string[] {
  const gateways = gatewaysOf(targets);
  const rows = CONCURRENCY.map((streams): Row => {
    const id = caseId(streams);
    const gap = (target: Target): string =>
      `${ms(med(measurements, id, target.id, (m) => m.result.gap?.p50 ?? NaN))} / ${ms(med(measurements, id, target.id, (m) => m.result.gap?.p99 ?? NaN))}`;
    const overDirect = (gateway: Target): string =>
      signedMs(pairedAcross(measurements, [id, gateway.id], [id, 'direct'], (m) => m.result.gap?.p99 ?? NaN, minus));
    const rss = (gateway: Target): string => num(med(measurements, id, gateway.id, (m) => (m.peakRssKiB ?? NaN) / 1024));
    return [String(streams), ...targets.map(gap), ...gateways.map(overDirect), ...gateways.map(rss)];
  });
  const labels = (list: readonly Target[]): string[] => list.map((t) => t.label);
  return [
    `Concurrency sweep: streamed gamma turns (20 chunks 5 ms apart) at once, each caller starting its next as its last ends; ${settings.openS} s per run; gap = between a stream's chunks after its first token`,
    ...table(
      [
        [
          ...spanning('', 1),
          ...spanning('gap p50 / p99 ms', targets.length),
          ...spanning('− direct p99', gateways.length),
          ...spanning('peak RSS MiB', gateways.length),
        ],
        ['streams', ...labels(targets), ...labels(gateways), ...labels(gateways)],
      ],
      rows,
    ),
  ];
}

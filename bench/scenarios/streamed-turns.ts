import { med, minus, pairedAcross } from '../figures.js';
import type { Bench } from '../lib/setup.js';
import { ADDED_TTFB_P50_MS } from '../report.js';
import { ms, num, signedMs, spanning, table, withVerdict, type Row } from '../lib/table.js';
import { gatewaysOf, type Target } from '../lib/targets.js';
import { CLOSED_LOOP_SCENARIOS, CONTENT_CHUNKS, requestFor, type Scenario } from '../lib/workload.js';
import type { OpenLoopResult } from '../load/protocol.js';
import type { AgentPathSettings, CaseMeasurement } from './measured.js';
import { inRounds, type Rounds } from './rounds.js';

/**
 * Streamed turns as a model paces them: the gamma and alpha simulators sending 20 content chunks
 * 5 ms apart (the `[[sim:chunk_delay_ms=5]]` directive, per request), open loop at a modest
 * rate: time to first token and the gap between chunks, p50/p99, against direct, the floor and
 * each gateway; and a gamma tool-call stream, every argument delta checked to arrive whole and in
 * order (its fidelity: each stream that does not is an error of the run).
 */

export const CHUNK_DELAY_MS = 5;
/** Requests/s: each turn lasts 100 ms, so about two at a time. */
export const TURN_RATE = 20;
/** The open loop's first-byte target, applied to the first token: most the gateway may add over direct, ms. */
export const ADDED_TTFT_P50_MS = ADDED_TTFB_P50_MS;

const scenario = (id: Scenario['id']): Scenario => CLOSED_LOOP_SCENARIOS.find((s) => s.id === id) as Scenario;

export const TURNS: ReadonlyArray<{ id: string; scenario: Scenario; tools: boolean; label: string }> = [
  { id: 'turn-gamma', scenario: scenario('gamma-stream'), tools: false, label: `gamma, ${CONTENT_CHUNKS} chunks ${CHUNK_DELAY_MS} ms apart` },
  { id: 'turn-alpha', scenario: scenario('alpha-stream'), tools: false, label: `alpha (translated), ${CONTENT_CHUNKS} chunks ${CHUNK_DELAY_MS} ms apart` },
  { id: 'turn-tool', scenario: scenario('gamma-stream'), tools: true, label: `gamma tool call, argument deltas ${CHUNK_DELAY_MS} ms apart` },
];

export const turnPrompt = (): string => `Hello there, tell me something [[sim:tokens=${CONTENT_CHUNKS}]] [[sim:chunk_delay_ms=${CHUNK_DELAY_MS}]]`;

type Measured = CaseMeasurement<OpenLoopResult>;

export function streamedTurns(bench: Bench, settings: AgentPathSettings, progress: (line: string) => void): Promise<Rounds<OpenLoopResult>> {
  const turns = new Map(TURNS.map((turn) => [turn.id, turn]));
  return inRounds<OpenLoopResult>(
    bench,
    settings,
    {
      name: 'turn',
      ids: TURNS.map((turn) => turn.id),
      job: (id, target, durationS) => {
        const turn = turns.get(id) as (typeof TURNS)[number];
        const request = requestFor(turn.scenario, target, bench.origins, turnPrompt(), turn.tools);
        return { type: 'open', requests: [request], rate: TURN_RATE, durationS, tokens: !turn.tools };
      },
      figure: (result) => (result.ttft ? `first token p50 ${result.ttft.p50.toFixed(2)} ms` : `${result.ok}/${result.sent} streams whole`),
    },
    progress,
  );
}

export function streamedTurnReport(measurements: readonly Measured[], targets: readonly Target[], settings: AgentPathSettings): string[] {
  const gateways = gatewaysOf(targets);
  const pair = (p50: string, p99: string): string => `${p50} / ${p99}`;
  const timed = TURNS.filter((turn) => !turn.tools).map(({ id, label }): Row => {
    const of = (target: Target, pick: (r: OpenLoopResult) => number): number => med(measurements, id, target.id, (m) => pick(m.result));
    const ttft = (target: Target): string => pair(ms(of(target, (r) => r.ttft?.p50 ?? NaN)), ms(of(target, (r) => r.ttft?.p99 ?? NaN)));
    const gap = (target: Target): string => pair(ms(of(target, (r) => r.gap?.p50 ?? NaN)), ms(of(target, (r) => r.gap?.p99 ?? NaN)));
    const added = (gateway: Target, base: string): number => pairedAcross(measurements, [id, gateway.id], [id, base], (m) => m.result.ttft?.p50 ?? NaN, minus);
    const overDirect = (gateway: Target): string => {
      const value = added(gateway, 'direct');
      return withVerdict(signedMs(value), value, value <= ADDED_TTFT_P50_MS);
    };
    return [label, ...targets.map(ttft), ...gateways.map(overDirect), ...gateways.map((g) => signedMs(added(g, 'floor'))), ...targets.map(gap)];
  });
  const labels = (list: readonly Target[]): string[] => list.map((t) => t.label);
  const tool = TURNS.find((turn) => turn.tools);
  const whole = (target: Target): string => {
    const runs = measurements.filter((m) => m.scenario === tool?.id && m.target === target.id);
    const [ok, sent] = runs.reduce(([a, b], m) => [a + m.result.ok, b + m.result.sent], [0, 0]);
    return `${target.label} ${num((100 * ok) / sent, 1)} % of ${sent}`;
  };
  return [
    `Streamed turns: open loop at ${TURN_RATE} requests/s, ${settings.openS} s per run; first token = request → the chunk with the first content delta; gap = between a stream's chunks after it`,
    ...table(
      [
        [
          ...spanning('', 1),
          ...spanning('first token p50 / p99 ms', targets.length),
          ...spanning(`− direct p50 (≤ +${ADDED_TTFT_P50_MS})`, gateways.length),
          ...spanning('− floor p50', gateways.length),
          ...spanning('gap p50 / p99 ms', targets.length),
        ],
        ['turn', ...labels(targets), ...labels(gateways), ...labels(gateways), ...labels(targets)],
      ],
      timed,
    ),
    `${tool?.label ?? 'tool call'}: streams with every argument delta whole and in order: ${targets.map(whole).join(', ')}`,
  ];
}

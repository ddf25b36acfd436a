import { med, pairedAcross, minus, ratio } from '../figures.js';
import type { Bench } from '../lib/setup.js';
import { ms, num, signedMs, spanning, table, withVerdict, type Row } from '../lib/table.js';
import { gatewaysOf, type Target } from '../lib/targets.js';
import { CLOSED_LOOP_SCENARIOS, DEFAULT_PROMPT, requestFor, type Scenario } from '../lib/workload.js';
import type { OpenLoopResult } from '../load/protocol.js';
import type { AgentPathSettings, CaseMeasurement } from './measured.js';
import { inRounds, type Rounds } from './rounds.js';

/**
 * Body sizes: a streamed gamma chat call whose prompt is padded to 1k, 10k and 100k tokens (4
 * bytes a token) and to 2 MB, open loop at a modest rate (a large body's cost shows in its
 * latency without queueing behind the next: closed loop would add the wait for the others),
 * against direct, the floor and each gateway: latency p50/p99 and CPU per call.
 */

export const BYTES_PER_TOKEN = 4;
/**
 * Requests/s of each run: rates that keep the servers' core from filling (the simulator alone
 * spends a few hundred ms of CPU reading a 2 MB prompt, so those go slower), so no call waits
 * behind another.
 */
/** The targets: at 100k tokens at most this much p50 over the floor, ms; at every size the gateway's CPU at most this many times the floor's. */
export const BODY_ADDED_P50_MS = 1;
export const BODY_CPU_OVER_FLOOR = 2;

export const BODY_SIZES: ReadonlyArray<{ id: string; bytes: number; rate: number; label: string }> = [
  { id: 'body-1k', bytes: 1_000 * BYTES_PER_TOKEN, rate: 10, label: '1k tokens (4 KB)' },
  { id: 'body-10k', bytes: 10_000 * BYTES_PER_TOKEN, rate: 10, label: '10k tokens (40 KB)' },
  { id: 'body-100k', bytes: 100_000 * BYTES_PER_TOKEN, rate: 10, label: '100k tokens (400 KB)' },
  { id: 'body-2mb', bytes: 2 * 1024 * 1024, rate: 2, label: '2 MB' },
];
/** The size the latency target is judged at. */
const JUDGED = 'body-100k';
const GAMMA_STREAM = CLOSED_LOOP_SCENARIOS.find((s) => s.id === 'gamma-stream') as Scenario;

/** The default prompt after `bytes` of four-byte words (`tok `), so the body is `bytes` and about 150 bytes more. */
export const paddedPrompt = (bytes: number): string => `${'tok '.repeat(Math.floor(bytes / 4))}${DEFAULT_PROMPT}`;

type Measured = CaseMeasurement<OpenLoopResult>;

export function bodySizes(bench: Bench, settings: AgentPathSettings, progress: (line: string) => void): Promise<Rounds<OpenLoopResult>> {
  const sizes = new Map(BODY_SIZES.map((size) => [size.id, { prompt: paddedPrompt(size.bytes), rate: size.rate }]));
  return inRounds<OpenLoopResult>(
    bench,
    settings,
    {
      name: 'body size',
      ids: BODY_SIZES.map((s) => s.id),
      job: (id, target, durationS) => {
        const { prompt, rate } = sizes.get(id) ?? { prompt: '', rate: 0 };
        // At least 4 calls of each size in a run, however short.
        return { type: 'open', requests: [requestFor(GAMMA_STREAM, target, bench.origins, prompt)], rate, durationS: Math.max(durationS, 4 / rate) };
      },
      figure: (result) => `p50 ${result.total.p50.toFixed(2)} ms`,
    },
    progress,
  );
}

export function bodySizeReport(measurements: readonly Measured[], targets: readonly Target[], settings: AgentPathSettings): string[] {
  const gateways = gatewaysOf(targets);
  const proxies = targets.filter((t) => t.kind !== 'direct');
  const rows = BODY_SIZES.map(({ id, label, rate }): Row => {
    const latency = (target: Target): string =>
      `${ms(med(measurements, id, target.id, (m) => m.result.total.p50))} / ${ms(med(measurements, id, target.id, (m) => m.result.total.p99))}`;
    const overFloor = (gateway: Target): string => {
      const value = pairedAcross(measurements, [id, gateway.id], [id, 'floor'], (m) => m.result.total.p50, minus);
      return id === JUDGED ? withVerdict(signedMs(value), value, value <= BODY_ADDED_P50_MS) : signedMs(value);
    };
    const cpu = (target: Target): string => num(med(measurements, id, target.id, (m) => m.cpu.proxyUsPerAnswer ?? NaN));
    const cpuOverFloor = (gateway: Target): string => {
      const value = pairedAcross(measurements, [id, gateway.id], [id, 'floor'], (m) => m.cpu.proxyUsPerAnswer ?? NaN, ratio);
      return withVerdict(num(value, 2), value, value <= BODY_CPU_OVER_FLOOR);
    };
    return [`${label}, ${rate}/s`, ...targets.map(latency), ...gateways.map(overFloor), ...proxies.map(cpu), ...gateways.map(cpuOverFloor)];
  });
  const labels = (list: readonly Target[]): string[] => list.map((t) => t.label);
  return [
    `Body sizes: gamma, streamed, the prompt padded; open loop at the rate shown, ${settings.openS} s per run (at least 4 calls); latency = request → last byte`,
    ...table(
      [
        [
          ...spanning('', 1),
          ...spanning('p50 / p99 ms', targets.length),
          ...spanning(`− floor p50 (100k: ≤ +${BODY_ADDED_P50_MS})`, gateways.length),
          ...spanning('CPU µs/call', proxies.length),
          ...spanning(`÷ floor CPU (≤ ${BODY_CPU_OVER_FLOOR})`, gateways.length),
        ],
        ['prompt', ...labels(targets), ...labels(gateways), ...labels(proxies), ...labels(gateways)],
      ],
      rows,
    ),
  ];
}

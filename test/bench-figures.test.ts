import t from 'tap';
import type { Measurement } from '../bench/compare.js';
import { paired, pairedQuotient, ratio } from '../bench/figures.js';
import type { ScenarioId } from '../bench/lib/workload.js';
import type { ClosedLoopResult } from '../bench/load/protocol.js';

/** The bench's paired figures: each round's targets against each other, then the median over rounds. */

const run = (round: number, scenario: ScenarioId, target: string, rps: number): Measurement<ClosedLoopResult> => ({
  round,
  scenario,
  target,
  result: { type: 'closed', rps, ok: rps, latency: { p50: 1, p99: 2 }, failures: { socket: 0, timeouts: 0, non200: 0, wrong: 0 } },
  cpu: { proxyUsPerAnswer: null, storeUsPerAnswer: null, simUsPerAnswer: 0, loadShare: 0 },
});
const rps = (m: Measurement<ClosedLoopResult>): number => m.result.rps;

// Round 1's chat floor ran at half its speed (someone else's work on the machine): the chat
// ratio of that round alone is inflated. Rounds 2 and 3: Responses at 0.9 and 1.0 of chat.
const runs = [
  run(1, 'gamma-stream', 'floor', 2000), run(1, 'gamma-stream', 'gateway', 1600),
  run(1, 'responses-stream', 'floor', 4000), run(1, 'responses-stream', 'gateway', 1800),
  run(2, 'gamma-stream', 'floor', 4000), run(2, 'gamma-stream', 'gateway', 2400),
  run(2, 'responses-stream', 'floor', 4000), run(2, 'responses-stream', 'gateway', 2160),
  run(3, 'gamma-stream', 'floor', 4000), run(3, 'gamma-stream', 'gateway', 2000),
  run(3, 'responses-stream', 'floor', 4000), run(3, 'responses-stream', 'gateway', 2000),
];

t.test('a ratio is paired within each round, then the median', async (t) => {
  t.equal(paired(runs, 'gamma-stream', ['gateway', 'floor'], rps, ratio), 0.6, 'rounds: 0.8, 0.6, 0.5');
  t.equal(paired(runs, 'responses-stream', ['gateway', 'floor'], rps, ratio), 0.5, 'rounds: 0.45, 0.54, 0.5');
});

t.test("the quotient of two scenarios' ratios is taken per round, then the median", async (t) => {
  // Per round: 0.45 / 0.8, 0.54 / 0.6, 0.5 / 0.5. The medians alone would give 0.5 / 0.6.
  t.equal(Number(pairedQuotient(runs, ['responses-stream', 'gamma-stream'], ['gateway', 'floor'], rps).toFixed(6)), 0.9);
  const missing = runs.filter((m) => !(m.round === 3 && m.scenario === 'gamma-stream'));
  t.equal(Number(pairedQuotient(missing, ['responses-stream', 'gamma-stream'], ['gateway', 'floor'], rps).toFixed(6)), Number(((0.45 / 0.8 + 0.9) / 2).toFixed(6)), 'a round without both scenarios is left out');
});

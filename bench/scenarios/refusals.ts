import { measure, measureOn } from '../compare.js';
import { med, pairedAcross, ratio } from '../figures.js';
import type { Bench } from '../lib/setup.js';
import { num, table, withVerdict, type Row } from '../lib/table.js';
import { gatewaysOf, roundOrder, type Target } from '../lib/targets.js';
import { CLOSED_LOOP_SCENARIOS, referenceBody, requestFor, type RequestSpec, type Scenario } from '../lib/workload.js';
import { failureCount, type ClosedLoopJob, type ClosedLoopResult } from '../load/protocol.js';
import { failedNote, type AgentPathSettings, type CaseMeasurement } from './measured.js';
import type { Rounds } from './rounds.js';

/**
 * The invalid-key flood: closed loop of small chat calls with a well-formed but unknown key
 * (`sl-` and 32 random characters, a new one each call: no cache can answer them) and with no key, each answered 401 in
 * the chat error envelope; the gateway's CPU per refusal beside a bare Node server's that
 * answers 401 (bench/servers/refuser.ts) and the floor's CPU per forwarded gamma-json call.
 */

/** The targets: a refusal's CPU at most this many times the bare 401 server's, and below the floor's forward. */
export const REFUSAL_OVER_BARE = 1.5;

export type RefusalCase = 'wrong-key' | 'no-key' | 'bare-401' | 'forward';
const REFUSALS: ReadonlyArray<{ id: 'wrong-key' | 'no-key'; label: string }> = [
  { id: 'wrong-key', label: 'unknown key' },
  { id: 'no-key', label: 'no key' },
];
const BARE = 'bare-401';
const GAMMA_JSON = CLOSED_LOOP_SCENARIOS.find((s) => s.id === 'gamma-json') as Scenario;

/** A small chat call to `origin` that the answer must refuse: with a new unknown key each time (`fresh`), or with no key. */
export function refusedRequest(origin: string, key: 'fresh' | 'none'): RequestSpec {
  return {
    url: `${origin}/v1/chat/completions`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(referenceBody('gamma', false)),
    check: 'reference-401',
    status: 401,
    ...(key === 'fresh' ? { freshKey: true as const } : {}),
  };
}

type Measured = CaseMeasurement<ClosedLoopResult>;

export async function refusals(bench: Bench, settings: AgentPathSettings, progress: (line: string) => void): Promise<Rounds<ClosedLoopResult>> {
  const refuser = bench.refuser;
  const floor = bench.targets.find((t) => t.kind === 'floor');
  if (!refuser || !floor) throw new Error('bench: the refusal scenario needs the floor and the bare 401 server');
  const job = (request: RequestSpec, durationS: number): ClosedLoopJob => ({ type: 'closed', request, connections: settings.connections, durationS });
  const gatewayRequest = (target: Target, which: RefusalCase): RequestSpec =>
    refusedRequest(bench.origins.gateways[target.id]?.origin ?? '', which === 'no-key' ? 'none' : 'fresh');
  const measurements: Measured[] = [];
  const record = (round: number, scenario: RefusalCase, target: string, measured: Omit<Measured, 'round' | 'scenario' | 'target'>): void => {
    measurements.push({ round, scenario, target, ...measured });
    const perAnswer = measured.cpu.proxyUsPerAnswer ?? NaN;
    progress(
      `round ${round}/${settings.rounds} refusals ${scenario.padEnd(9)} ${target.padEnd(18)} ${num(perAnswer)} µs CPU/answer${failedNote(measured.result)}`,
    );
  };
  let warmUpFailures = 0;
  for (const target of gatewaysOf(bench.targets)) {
    for (const { id } of REFUSALS)
      warmUpFailures += failureCount((await bench.load.run<ClosedLoopResult>(job(gatewayRequest(target, id), settings.warmS))).failures);
  }
  warmUpFailures += failureCount((await bench.load.run<ClosedLoopResult>(job(refusedRequest(refuser.origin, 'fresh'), settings.warmS))).failures);
  for (let round = 1; round <= settings.rounds; round++) {
    bench.group.assertAlive();
    record(
      round,
      'bare-401',
      BARE,
      await measureOn<ClosedLoopResult>(bench, refuser.process.pid, null, job(refusedRequest(refuser.origin, 'fresh'), settings.closedS)),
    );
    record(round, 'forward', floor.id, await measure<ClosedLoopResult>(bench, floor, job(requestFor(GAMMA_JSON, floor, bench.origins), settings.closedS)));
    for (const target of gatewaysOf(roundOrder(bench.targets, round))) {
      for (const { id } of REFUSALS)
        record(round, id, target.id, await measure<ClosedLoopResult>(bench, target, job(gatewayRequest(target, id), settings.closedS)));
    }
  }
  return { measured: measurements, warmUpFailures };
}

/** The table: CPU µs per answer (medians of the rounds) and the verdicts, each gateway paired with the bare server and the floor within a round. */
export function refusalReport(measurements: readonly Measured[], targets: readonly Target[], settings: AgentPathSettings): string[] {
  const us = (m: Measured): number => m.cpu.proxyUsPerAnswer ?? NaN;
  const bare = med(measurements, 'bare-401', BARE, us);
  const forward = med(measurements, 'forward', 'floor', us);
  const against = (scenario: RefusalCase, base: RefusalCase, baseTarget: string, target: string): number =>
    pairedAcross(measurements, [scenario, target], [base, baseTarget], us, ratio);
  const rows: Row[] = [
    ['bare Node 401 server', num(bare), '', ''],
    [`floor, forwarding ${GAMMA_JSON.id}`, num(forward), '', ''],
    ...gatewaysOf(targets).flatMap((target) =>
      REFUSALS.map(({ id, label }): Row => {
        const overBare = against(id, 'bare-401', BARE, target.id);
        const overForward = against(id, 'forward', 'floor', target.id);
        return [
          `${target.label}, ${label}`,
          num(med(measurements, id, target.id, us)),
          withVerdict(num(overBare, 2), overBare, overBare <= REFUSAL_OVER_BARE),
          withVerdict(num(overForward, 2), overForward, overForward < 1),
        ];
      }),
    ),
  ];
  return [
    `Invalid-key flood: closed loop, ${settings.connections} connections, ${settings.closedS} s per run, small chat calls answered 401 invalid_api_key; proxy CPU µs per answer, medians of ${settings.rounds} round(s)`,
    ...table([['', 'CPU µs/answer', `÷ bare 401 (≤ ${REFUSAL_OVER_BARE.toFixed(2)})`, "÷ floor's forward (< 1)"]], rows),
  ];
}

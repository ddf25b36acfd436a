import { med, minus, pairedAcross } from '../figures.js';
import type { Bench } from '../lib/setup.js';
import { ms, signedMs, spanning, table, type Row } from '../lib/table.js';
import type { Target } from '../lib/targets.js';
import { CLOSED_LOOP_SCENARIOS, requestFor, type Scenario } from '../lib/workload.js';
import type { OpenLoopJob, OpenLoopResult } from '../load/protocol.js';
import type { AgentPathSettings, CaseMeasurement } from './measured.js';
import { inRounds, type Rounds } from './rounds.js';
import { turnPrompt } from './streamed-turns.js';

/**
 * Head-of-line: small streamed gamma turns (20 chunks 5 ms apart) at 40/s, alone and with
 * large non-streamed gamma calls arriving beside them, 400 KB and 5 MB in turn, one every
 * 200 ms; the turns' time to first token p99 with the large bodies against without, per target.
 * A gateway that reads or parses a large body on its one thread holds up every turn behind it.
 */

export const TURNS_PER_S = 40;
/** Large bodies per second, alternately of each size. */
export const LARGE_PER_S = 5;
export const LARGE_BYTES: readonly number[] = [400 * 1024, 5 * 1024 * 1024];

const STREAM = CLOSED_LOOP_SCENARIOS.find((s) => s.id === 'gamma-stream') as Scenario;
const JSON_CALL = CLOSED_LOOP_SCENARIOS.find((s) => s.id === 'gamma-json') as Scenario;
/**
 * A large prompt of `bytes` in 1 KB words: the simulator counts a prompt's words, and at four
 * bytes a word it would spend a few hundred ms of its core on each 5 MB body — on the servers'
 * core, which the target under test shares, so the turns would wait for the simulator.
 */
export const blobPrompt = (bytes: number): string => `${`${'x'.repeat(1023)} `.repeat(Math.floor(bytes / 1024))}[[sim:tokens=20]]`;

const ALONE = 'turns-alone';
const BESIDE = 'turns-beside';

/** The open loop's requests in order: `TURNS_PER_S / LARGE_PER_S` turns, then a large body, each size in turn; the turns are the figured ones. */
export function mixedJob(turn: OpenLoopJob['requests'][number], large: OpenLoopJob['requests'], durationS: number): OpenLoopJob {
  const perLarge = TURNS_PER_S / LARGE_PER_S;
  const requests = large.flatMap((body) => [...Array<typeof turn>(perLarge).fill(turn), body]);
  const figured = requests.flatMap((request, index) => (request === turn ? [index] : []));
  return { type: 'open', requests, rate: TURNS_PER_S + LARGE_PER_S, durationS, tokens: true, figured };
}

type Measured = CaseMeasurement<OpenLoopResult>;

export function headOfLine(bench: Bench, settings: AgentPathSettings, progress: (line: string) => void): Promise<Rounds<OpenLoopResult>> {
  const large = LARGE_BYTES.map(blobPrompt);
  return inRounds<OpenLoopResult>(
    bench,
    settings,
    {
      name: 'head-of-line',
      ids: [ALONE, BESIDE],
      job: (id, target, durationS) => {
        const turn = requestFor(STREAM, target, bench.origins, turnPrompt());
        if (id === ALONE) return { type: 'open', requests: [turn], rate: TURNS_PER_S, durationS, tokens: true };
        return mixedJob(
          turn,
          large.map((prompt) => requestFor(JSON_CALL, target, bench.origins, prompt)),
          durationS,
        );
      },
      figure: (result) => `first token p99 ${ms(result.ttft?.p99 ?? NaN)} ms`,
    },
    progress,
  );
}

export function headOfLineReport(measurements: readonly Measured[], targets: readonly Target[], settings: AgentPathSettings): string[] {
  const ttft = (id: string, target: Target, pick: 'p50' | 'p99'): number => med(measurements, id, target.id, (m) => m.result.ttft?.[pick] ?? NaN);
  const rows = targets.map((target): Row => {
    const growth = pairedAcross(measurements, [BESIDE, target.id], [ALONE, target.id], (m) => m.result.ttft?.p99 ?? NaN, minus);
    return [
      target.label,
      `${ms(ttft(ALONE, target, 'p50'))} / ${ms(ttft(ALONE, target, 'p99'))}`,
      `${ms(ttft(BESIDE, target, 'p50'))} / ${ms(ttft(BESIDE, target, 'p99'))}`,
      signedMs(growth),
    ];
  });
  const sizes = LARGE_BYTES.map((bytes) => (bytes >= 1024 * 1024 ? `${bytes / 1024 / 1024} MB` : `${bytes / 1024} KB`)).join(' and ');
  return [
    `Head-of-line: streamed gamma turns at ${TURNS_PER_S}/s, alone and beside non-streamed gamma calls of ${sizes} in turn (${LARGE_PER_S}/s); ${settings.openS} s per run; the turns' first token`,
    ...table(
      [
        [...spanning('', 1), ...spanning('first token p50 / p99 ms', 2), ''],
        ['target', 'turns alone', 'beside large bodies', 'p99 growth ms'],
      ],
      rows,
    ),
  ];
}

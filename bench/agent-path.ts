import type { Bench } from './lib/setup.js';
import type { Target } from './lib/targets.js';
import type { ClosedLoopResult, ConcurrentResult, OpenLoopResult } from './load/protocol.js';
import { bodySizeReport, bodySizes } from './scenarios/body-sizes.js';
import { concurrency, concurrencyReport } from './scenarios/concurrency.js';
import { headOfLine, headOfLineReport } from './scenarios/head-of-line.js';
import { errorLines, type AgentPathSettings, type CaseMeasurement } from './scenarios/measured.js';
import { refusalReport, refusals } from './scenarios/refusals.js';
import { streamedTurnReport, streamedTurns } from './scenarios/streamed-turns.js';

/**
 * The agent's path (issue 42): the scenarios the comparison does not cover, each against
 * direct, the floor and every gateway (`--against` checkouts too: they all serve these calls),
 * run after the comparison or alone with `--agent-path`. See docs/performance.md.
 */

/** About 8 minutes with one gateway (each more gateway adds about 3), `--quick` about 1.5. */
export const AGENT_PATH: AgentPathSettings = { rounds: 3, closedS: 4, openS: 3.5, warmS: 0.5, connections: 32 };
export const AGENT_PATH_QUICK: AgentPathSettings = { rounds: 1, closedS: 1.5, openS: 1.5, warmS: 0.5, connections: 32 };

export interface AgentPathResult {
  settings: AgentPathSettings;
  targets: Target[];
  refusals: Array<CaseMeasurement<ClosedLoopResult>>;
  bodySizes: Array<CaseMeasurement<OpenLoopResult>>;
  turns: Array<CaseMeasurement<OpenLoopResult>>;
  headOfLine: Array<CaseMeasurement<OpenLoopResult>>;
  concurrency: Array<CaseMeasurement<ConcurrentResult>>;
  /** Failed answers of the warm-ups (not measured, but still errors). */
  warmUpFailures: number;
}

export async function agentPath(bench: Bench, settings: AgentPathSettings, progress: (line: string) => void): Promise<AgentPathResult> {
  const refused = await refusals(bench, settings, progress);
  const sized = await bodySizes(bench, settings, progress);
  const turns = await streamedTurns(bench, settings, progress);
  const blocked = await headOfLine(bench, settings, progress);
  const swept = await concurrency(bench, settings, progress);
  return {
    settings,
    targets: bench.targets,
    refusals: refused.measured,
    bodySizes: sized.measured,
    turns: turns.measured,
    headOfLine: blocked.measured,
    concurrency: swept.measured,
    warmUpFailures: [refused, sized, turns, blocked, swept].reduce((sum, run) => sum + run.warmUpFailures, 0),
  };
}

/** The report's tables, and the errors of every scenario (`failed`: how many answers were wrong or failed). */
export function agentPathReport(result: AgentPathResult): { lines: string[]; failed: number } {
  const { settings, targets } = result;
  const errors = errorLines(
    "the agent's path",
    [...result.refusals, ...result.bodySizes, ...result.turns, ...result.headOfLine, ...result.concurrency],
    result.warmUpFailures,
  );
  const lines = [
    `The agent's path (issue 42): medians of ${settings.rounds} round(s)`,
    '',
    ...refusalReport(result.refusals, targets, settings),
    '',
    ...bodySizeReport(result.bodySizes, targets, settings),
    '',
    ...streamedTurnReport(result.turns, targets, settings),
    '',
    ...headOfLineReport(result.headOfLine, targets, settings),
    '',
    ...concurrencyReport(result.concurrency, targets, settings),
    '',
    ...(errors.failed
      ? errors.lines
      : [
          "Errors: none (every refusal a 401 invalid_api_key in the chat envelope; every stream 200 with all its chunks, or the tool call's every argument delta, and its end).",
        ]),
  ];
  return { lines, failed: errors.failed };
}

import type { Bench } from './lib/setup.js';
import type { Target } from './lib/targets.js';
import type { ClosedLoopResult } from './load/protocol.js';
import { errorLines, type AgentPathSettings, type CaseMeasurement } from './scenarios/measured.js';
import { refusalReport, refusals } from './scenarios/refusals.js';

/**
 * The agent's path (issue 42): the scenarios the comparison does not cover, each against
 * direct, the floor and every gateway (`--against` checkouts too: they all serve these calls),
 * run after the comparison or alone with `--agent-path`. See docs/performance.md.
 */

export const AGENT_PATH: AgentPathSettings = { rounds: 3, closedS: 5, openS: 6, warmS: 1, connections: 32 };
export const AGENT_PATH_QUICK: AgentPathSettings = { rounds: 1, closedS: 1.5, openS: 2, warmS: 0.5, connections: 32 };

export interface AgentPathResult {
  settings: AgentPathSettings;
  targets: Target[];
  refusals: Array<CaseMeasurement<ClosedLoopResult>>;
}

export async function agentPath(bench: Bench, settings: AgentPathSettings, progress: (line: string) => void): Promise<AgentPathResult> {
  return { settings, targets: bench.targets, refusals: await refusals(bench, settings, progress) };
}

/** The report's tables, and the errors of every scenario (`failed`: how many answers were wrong or failed). */
export function agentPathReport(result: AgentPathResult): { lines: string[]; failed: number } {
  const errors = errorLines('the agent path', result.refusals);
  const lines = [
    `The agent's path (issue 42): medians of ${result.settings.rounds} round(s)`,
    '',
    ...refusalReport(result.refusals, result.targets, result.settings),
    '',
    ...(errors.failed ? errors.lines : ['Errors: none (every refusal a 401 invalid_api_key in the chat envelope).']),
  ];
  return { lines, failed: errors.failed };
}

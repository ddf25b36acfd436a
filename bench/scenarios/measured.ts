import type { CpuUse } from '../compare.js';
import { failureCount, type Failures, type LoadResult } from '../load/protocol.js';

/** What the scenarios of bench/agent-path.ts record: one load run of a case on a target in a round. */

export interface AgentPathSettings {
  rounds: number;
  /** Seconds of each closed-loop run (the refusals). */
  closedS: number;
  /** Seconds of each open-loop run (body sizes, streamed turns, head-of-line). */
  openS: number;
  /** Seconds of closed loop per case and target before the first round. */
  warmS: number;
  /** Connections of the closed loop. */
  connections: number;
}

export interface CaseMeasurement<R extends LoadResult = LoadResult> {
  round: number;
  /** The case (a refusal kind, a body size, a family's turn …), unique within its scenario. */
  scenario: string;
  /** The target's id (or the bare 401 server's, `bare-401`). */
  target: string;
  result: R;
  cpu: CpuUse;
  /** The highest RSS of the gateway (with its workers) sampled during the run, KiB, when the case asks for it. */
  peakRssKiB?: number;
}

/** For the progress line: what failed, if anything. */
export const failedNote = (result: LoadResult): string => (failureCount(result.failures) ? ` — FAILED ${JSON.stringify(result.failures)}` : '');

/** The `!!! ERRORS` lines of failed runs and warm-up failures (none: none), and their count. */
export function errorLines(title: string, measurements: readonly CaseMeasurement[], warmUpFailures = 0): { lines: string[]; failed: number } {
  const bad = measurements.filter((m) => failureCount(m.result.failures));
  const failed = bad.reduce((sum, m) => sum + failureCount(m.result.failures), warmUpFailures);
  if (!failed) return { lines: [], failed };
  const sum = (kind: keyof Omit<Failures, 'first'>): number => bad.reduce((total, m) => total + m.result.failures[kind], 0);
  return {
    failed,
    lines: [
      `!!! ERRORS in ${title}: ${failed} wrong or failed answers (socket ${sum('socket')}, timeouts ${sum('timeouts')}, unexpected status ${sum('non200')}, wrong ${sum('wrong')}; in the warm-ups ${warmUpFailures}) !!!`,
      ...bad.map((m) => `  round ${m.round} ${m.scenario} on ${m.target}: first ${m.result.failures.first ?? '?'}`),
    ],
  };
}

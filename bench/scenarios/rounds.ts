import { measure } from '../compare.js';
import { treeRssKiB } from '../lib/processes.js';
import type { Bench } from '../lib/setup.js';
import { roundOrder, type Target } from '../lib/targets.js';
import { failureCount, type LoadJob, type LoadResult } from '../load/protocol.js';
import { failedNote, type AgentPathSettings, type CaseMeasurement } from './measured.js';

/** Runs of cases in rounds: after a warm-up of each (case, target), each round every case on every target, the targets in the round's order. */

export interface Cases<R extends LoadResult> {
  /** For the progress lines. */
  name: string;
  ids: readonly string[];
  /** The targets of a case (default: all). */
  on?: (target: Target) => boolean;
  /** A case's load job on a target, `durationS` long. */
  job: (id: string, target: Target, durationS: number) => LoadJob;
  /** The progress line's figure. */
  figure: (result: R) => string;
  /** Sample each gateway's RSS during its runs (every RSS_SAMPLE_MS) and keep the highest. */
  peakRss?: boolean;
}

/** Each sample reads /proc on the load generator's core: seldom enough not to slow it. */
export const RSS_SAMPLE_MS = 200;

/** Samples the tree RSS of `pid` until stopped; the stop gives the highest seen. */
function watchRss(pid: number): () => number {
  let peak = treeRssKiB(pid) ?? 0;
  const timer = setInterval(() => {
    peak = Math.max(peak, treeRssKiB(pid) ?? 0);
  }, RSS_SAMPLE_MS);
  return () => {
    clearInterval(timer);
    return Math.max(peak, treeRssKiB(pid) ?? 0);
  };
}

export interface Rounds<R extends LoadResult> {
  measured: Array<CaseMeasurement<R>>;
  warmUpFailures: number;
}

export async function inRounds<R extends LoadResult>(
  bench: Bench,
  settings: AgentPathSettings,
  cases: Cases<R>,
  progress: (line: string) => void,
): Promise<Rounds<R>> {
  const on = cases.on ?? ((): boolean => true);
  let warmUpFailures = 0;
  for (const target of bench.targets.filter(on)) {
    for (const id of cases.ids) warmUpFailures += failureCount((await bench.load.run<R>(cases.job(id, target, settings.warmS))).failures);
  }
  const measured: Array<CaseMeasurement<R>> = [];
  for (let round = 1; round <= settings.rounds; round++) {
    for (const id of cases.ids) {
      for (const target of roundOrder(bench.targets, round).filter(on)) {
        const gateway = cases.peakRss ? bench.gateways.find((g) => g.target.id === target.id) : undefined;
        const stop = gateway ? watchRss(gateway.process.pid) : null;
        const { result, cpu } = await measure<R>(bench, target, cases.job(id, target, settings.openS));
        measured.push({ round, scenario: id, target: target.id, result, cpu, ...(stop ? { peakRssKiB: stop() } : {}) });
        progress(`round ${round}/${settings.rounds} ${cases.name} ${id.padEnd(10)} ${target.id.padEnd(18)} ${cases.figure(result)}${failedNote(result)}`);
      }
    }
  }
  return { measured, warmUpFailures };
}

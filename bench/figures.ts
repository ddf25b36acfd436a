import type { Measurement } from './compare.js';
import { median } from './lib/stats.js';
import type { ScenarioId } from './lib/workload.js';
import type { LoadResult } from './load/protocol.js';

/**
 * Figures of a comparison: medians across rounds, and pairs taken within a round (target a of
 * round r against target b of round r, then the median), so drift between rounds cancels.
 */

function pick<R extends LoadResult>(list: ReadonlyArray<Measurement<R>>, scenario: ScenarioId, target: string): Array<Measurement<R>> {
  return list.filter((m) => m.scenario === scenario && m.target === target);
}

/** The median of `value` over the rounds of one scenario and target. */
export function med<R extends LoadResult>(list: ReadonlyArray<Measurement<R>>, scenario: ScenarioId, target: string, value: (m: Measurement<R>) => number): number {
  return median(pick(list, scenario, target).map(value));
}

/** The median over rounds of `combine(a, b)` with a and b from the same round. */
export function paired<R extends LoadResult>(
  list: ReadonlyArray<Measurement<R>>,
  scenario: ScenarioId,
  [a, b]: readonly [string, string],
  value: (m: Measurement<R>) => number,
  combine: (a: number, b: number) => number,
): number {
  const others = pick(list, scenario, b);
  return median(
    pick(list, scenario, a).flatMap((first) => {
      const partner = others.find((m) => m.round === first.round);
      return partner ? [combine(value(first), value(partner))] : [];
    }),
  );
}

export const ratio = (a: number, b: number): number => a / b;
export const minus = (a: number, b: number): number => a - b;

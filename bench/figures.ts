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
export function med<R extends LoadResult>(
  list: ReadonlyArray<Measurement<R>>,
  scenario: ScenarioId,
  target: string,
  value: (m: Measurement<R>) => number,
): number {
  return median(pick(list, scenario, target).map(value));
}

/** `combine(a, b)` per round, with a and b from the same round (rounds where either is missing left out). */
function perRound<R extends LoadResult>(
  list: ReadonlyArray<Measurement<R>>,
  scenario: ScenarioId,
  [a, b]: readonly [string, string],
  value: (m: Measurement<R>) => number,
  combine: (a: number, b: number) => number,
): Map<number, number> {
  const others = pick(list, scenario, b);
  const out = new Map<number, number>();
  for (const first of pick(list, scenario, a)) {
    const partner = others.find((m) => m.round === first.round);
    if (partner) out.set(first.round, combine(value(first), value(partner)));
  }
  return out;
}

/** The median over rounds of `combine(a, b)` with a and b from the same round. */
export function paired<R extends LoadResult>(
  list: ReadonlyArray<Measurement<R>>,
  scenario: ScenarioId,
  targets: readonly [string, string],
  value: (m: Measurement<R>) => number,
  combine: (a: number, b: number) => number,
): number {
  return median([...perRound(list, scenario, targets, value, combine).values()]);
}

/**
 * The median over rounds of (a ÷ b on scenario x) ÷ (a ÷ b on scenario y), all four from the
 * same round: one disturbed run (a floor at half its speed) moves one round's quotient, not
 * the median of each scenario's ratio on its own.
 */
export function pairedQuotient<R extends LoadResult>(
  list: ReadonlyArray<Measurement<R>>,
  [x, y]: readonly [ScenarioId, ScenarioId],
  targets: readonly [string, string],
  value: (m: Measurement<R>) => number,
): number {
  const onY = perRound(list, y, targets, value, ratio);
  return median([...perRound(list, x, targets, value, ratio)].flatMap(([round, share]) => (onY.has(round) ? [share / (onY.get(round) as number)] : [])));
}

export const ratio = (a: number, b: number): number => a / b;
export const minus = (a: number, b: number): number => a - b;

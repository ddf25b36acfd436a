import { median } from './lib/stats.js';

/**
 * Figures of a comparison: medians across rounds, and pairs taken within a round (target a of
 * round r against target b of round r, then the median), so drift between rounds cancels.
 */

/** One measurement of a scenario on a target in a round (the comparison's, bench/agent-path.ts's). */
export interface Figure {
  round: number;
  scenario: string;
  target: string;
}

function pick<M extends Figure>(list: readonly M[], scenario: M['scenario'], target: string): M[] {
  return list.filter((m) => m.scenario === scenario && m.target === target);
}

/** The median of `value` over the rounds of one scenario and target. */
export function med<M extends Figure>(list: readonly M[], scenario: M['scenario'], target: string, value: (m: M) => number): number {
  return median(pick(list, scenario, target).map(value));
}

/** `combine(a, b)` per round, a of (scenario, target) `of`, b of `to`, both from the same round (rounds where either is missing left out). */
function perRound<M extends Figure>(
  list: readonly M[],
  [ofScenario, ofTarget]: readonly [M['scenario'], string],
  [toScenario, toTarget]: readonly [M['scenario'], string],
  value: (m: M) => number,
  combine: (a: number, b: number) => number,
): Map<number, number> {
  const others = pick(list, toScenario, toTarget);
  const out = new Map<number, number>();
  for (const first of pick(list, ofScenario, ofTarget)) {
    const partner = others.find((m) => m.round === first.round);
    if (partner) out.set(first.round, combine(value(first), value(partner)));
  }
  return out;
}

/** The median over rounds of `combine(a, b)` with a and b from the same round. */
export function paired<M extends Figure>(
  list: readonly M[],
  scenario: M['scenario'],
  [a, b]: readonly [string, string],
  value: (m: M) => number,
  combine: (a: number, b: number) => number,
): number {
  return pairedAcross(list, [scenario, a], [scenario, b], value, combine);
}

/** `paired` across two scenarios: (scenario, target) `of` against `to`, within each round. */
export function pairedAcross<M extends Figure>(
  list: readonly M[],
  of: readonly [M['scenario'], string],
  to: readonly [M['scenario'], string],
  value: (m: M) => number,
  combine: (a: number, b: number) => number,
): number {
  return median([...perRound(list, of, to, value, combine).values()]);
}

/**
 * The median over rounds of (a ÷ b on scenario x) ÷ (a ÷ b on scenario y), all four from the
 * same round: one disturbed run (a floor at half its speed) moves one round's quotient, not
 * the median of each scenario's ratio on its own.
 */
export function pairedQuotient<M extends Figure>(
  list: readonly M[],
  [x, y]: readonly [M['scenario'], M['scenario']],
  targets: readonly [string, string],
  value: (m: M) => number,
): number {
  const [a, b] = targets;
  const onY = perRound(list, [y, a], [y, b], value, ratio);
  return median([...perRound(list, [x, a], [x, b], value, ratio)].flatMap(([round, share]) => (onY.has(round) ? [share / (onY.get(round) as number)] : [])));
}

export const ratio = (a: number, b: number): number => a / b;
export const minus = (a: number, b: number): number => a - b;

import type { CycleSpend, ReserveInput, SpendLimit } from './store.js';

/**
 * The admission rule of both monthly limits, shared by the SQLite store (which decides with it)
 * and the PostgreSQL store (whose function gateway_admit decides the same in SQL; the store
 * names the refusing limits from the figures the function returns). A limit that is not set
 * (null) always fits.
 */
const fits = (limit: number | null, spent: number, held: number, amount: number): boolean =>
  limit === null || (spent < limit && spent + held + amount <= limit);

/** The limits a reservation does not fit, given the cycle's figures; empty means admitted. */
export function limitsRefusing(input: ReserveInput, figures: CycleSpend): SpendLimit[] {
  const refusing: SpendLimit[] = [];
  if (!fits(input.ceilingNanos, figures.spent, figures.reserved, input.nanos)) refusing.push('ceiling');
  if (!fits(input.upstreamLimitNanos, figures.upstreamSpent, figures.upstreamReserved, input.upstreamNanos)) refusing.push('upstream');
  return refusing;
}

/** No spend and nothing held: a cycle without a spend row. */
export const NO_SPEND: CycleSpend = Object.freeze({ spent: 0, reserved: 0, upstreamSpent: 0, upstreamReserved: 0 });

/**
 * Billing cycles: calendar months in UTC (docs/api-contract.md#rate-cap-and-spend-ceiling). A call belongs to the cycle in
 * which it was admitted, whenever it ends.
 */
export interface BillingCycle {
  /** `YYYY-MM`, the key under which spend and reservations are kept. */
  readonly id: string;
  /** Epoch ms of the cycle's first instant. */
  readonly start: number;
  /** Epoch ms of the next cycle's first instant (exclusive end). */
  readonly end: number;
}

/** The cycle the last call fell in: nearly every call falls in it too, and a cycle is immutable. */
let latest: BillingCycle = { id: '', start: 0, end: 0 };

export function cycleOf(epochMs: number): BillingCycle {
  if (epochMs >= latest.start && epochMs < latest.end) return latest;
  const at = new Date(epochMs);
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  const cycle = {
    id: `${year}-${String(month + 1).padStart(2, '0')}`,
    start: Date.UTC(year, month, 1),
    end: Date.UTC(year, month + 1, 1),
  };
  latest = cycle;
  return cycle;
}

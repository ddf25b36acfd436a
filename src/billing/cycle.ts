/**
 * Billing cycles: calendar months in UTC (docs/api-contract.md#rate-cap-and-spend-ceiling). A call belongs to the cycle in
 * which it was admitted, whenever it ends.
 */
export interface BillingCycle {
  /** `YYYY-MM`, the key under which spend and reservations are kept. */
  id: string;
  /** Epoch ms of the cycle's first instant. */
  start: number;
  /** Epoch ms of the next cycle's first instant (exclusive end). */
  end: number;
}

export function cycleOf(epochMs: number): BillingCycle {
  const at = new Date(epochMs);
  const year = at.getUTCFullYear();
  const month = at.getUTCMonth();
  return {
    id: `${year}-${String(month + 1).padStart(2, '0')}`,
    start: Date.UTC(year, month, 1),
    end: Date.UTC(year, month + 1, 1),
  };
}

/** Order statistics of the bench. All inputs are plain numbers (ms, requests/s). */

/** The p-quantile (0…1) of already sorted values, nearest rank; NaN for none. */
export function quantile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return NaN;
  const rank = Math.ceil(p * sorted.length) - 1;
  return sorted[Math.min(sorted.length - 1, Math.max(0, rank))] as number;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (!sorted.length) return NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

export interface Percentiles {
  p50: number;
  p99: number;
}

export function percentiles(samples: number[]): Percentiles {
  const sorted = Float64Array.from(samples).sort();
  const values = Array.from(sorted);
  return { p50: quantile(values, 0.5), p99: quantile(values, 0.99) };
}

/**
 * Latency buckets of the status rollups: upper bounds in ms, about 1.5× apart from 5 ms to
 * 120 s, plus one overflow bucket. Percentiles are estimated by linear interpolation inside the
 * bucket where the rank falls, so they are as precise as the bucket is narrow.
 */
export const LATENCY_BOUNDS_MS: readonly number[] = [
  5, 10, 15, 20, 30, 40, 50, 75, 100, 150, 200, 300, 400, 500, 750, 1000, 1500, 2000, 3000, 4000, 5000, 7500, 10_000, 15_000, 20_000, 30_000, 45_000, 60_000,
  90_000, 120_000,
];

/** Index of the bucket holding `ms` (LATENCY_BOUNDS_MS.length for the overflow bucket). */
export function bucketOf(ms: number): number {
  const index = LATENCY_BOUNDS_MS.findIndex((bound) => ms <= bound);
  return index === -1 ? LATENCY_BOUNDS_MS.length : index;
}

/**
 * The q-quantile (0 < q ≤ 1) of the latencies counted per bucket, in ms; null without data.
 * The overflow bucket answers its lower bound (the page shows it as "> 120 s").
 */
export function quantile(counts: ReadonlyMap<number, number>, q: number): number | null {
  let total = 0;
  for (const count of counts.values()) total += count;
  if (total === 0) return null;
  const rank = q * total;
  let seen = 0;
  for (let bucket = 0; bucket <= LATENCY_BOUNDS_MS.length; bucket++) {
    const count = counts.get(bucket) ?? 0;
    if (count === 0) continue;
    const lower = bucket === 0 ? 0 : (LATENCY_BOUNDS_MS[bucket - 1] as number);
    if (bucket === LATENCY_BOUNDS_MS.length) return lower;
    if (seen + count >= rank) {
      const upper = LATENCY_BOUNDS_MS[bucket] as number;
      return lower + ((rank - seen) / count) * (upper - lower);
    }
    seen += count;
  }
  return LATENCY_BOUNDS_MS.at(-1) as number;
}

/** `quantile`, rounded to 0.1 ms: what /status.json shows. */
export function quantileMs(counts: ReadonlyMap<number, number>, q: number): number | null {
  const ms = quantile(counts, q);
  return ms === null ? null : Math.round(ms * 10) / 10;
}

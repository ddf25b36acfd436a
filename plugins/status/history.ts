import { quantileMs } from './latency-buckets.js';
import type { DayTotals, LatencyAt } from './store/status.js';

/**
 * The status site's history: each model's last 90 UTC days (from the day rollups) and its
 * latency hour by hour over the last 24 hours (from the hour rollups' latency buckets).
 */

export const HISTORY_DAYS = 90;
export const LATENCY_HOURS = 24;
export const DAY_MS = 24 * 3_600_000;
const HOUR_MS = 3_600_000;

/** One UTC day of a model (or of all models): `uptime` null when no request reached an upstream. */
export interface Day {
  /** YYYY-MM-DD, UTC. */
  date: string;
  uptime: number | null;
  requests: number;
}

/** One hour's latency until the first byte of successful replies, in ms; null without one. */
export interface LatencyPoint {
  /** The hour's start, ISO 8601 UTC. */
  start: string;
  p50: number | null;
  p95: number | null;
}

interface Counts {
  requests: number;
  failures: number;
}

/** Success share of the requests that reached an upstream (null: none did). */
export const uptimeOf = (totals: Counts | undefined): number | null =>
  totals && totals.requests > 0 ? (totals.requests - totals.failures) / totals.requests : null;

export const dateOf = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The history's first day (its 00:00 UTC: today is the last of 90) and first hour (the current one is the last of 24). */
export function historySpan(now: number): { firstDay: number; firstHour: number } {
  return {
    firstDay: Math.floor(now / DAY_MS) * DAY_MS - (HISTORY_DAYS - 1) * DAY_MS,
    firstHour: Math.floor(now / HOUR_MS) * HOUR_MS - (LATENCY_HOURS - 1) * HOUR_MS,
  };
}

/** 90 days from `firstDay`, per model and summed over all (every row: also a model since left out of the catalogue). */
export function dailySeries(rows: readonly DayTotals[], firstDay: number): { of(model: string): Day[]; all: Day[] } {
  const byModel = new Map<string, Map<number, Counts>>();
  const all = new Map<number, Counts>();
  const add = (counts: Map<number, Counts>, row: DayTotals): void => {
    const seen = counts.get(row.day) ?? { requests: 0, failures: 0 };
    counts.set(row.day, { requests: seen.requests + row.requests, failures: seen.failures + row.failures });
  };
  for (const row of rows) {
    const counts = byModel.get(row.model) ?? new Map<number, Counts>();
    byModel.set(row.model, counts);
    add(counts, row);
    add(all, row);
  }
  const series = (counts: Map<number, Counts> | undefined): Day[] =>
    Array.from({ length: HISTORY_DAYS }, (_, i) => {
      const day = firstDay + i * DAY_MS;
      const totals = counts?.get(day);
      return { date: dateOf(day), uptime: uptimeOf(totals), requests: totals?.requests ?? 0 };
    });
  return { of: (model) => series(byModel.get(model)), all: series(all) };
}

/** A model's 24 hours from `firstHour`: p50 and p95 of each hour's latency buckets. */
export function hourlyLatency(rows: readonly LatencyAt[], firstHour: number): (model: string) => LatencyPoint[] {
  const byModel = new Map<string, Map<number, Map<number, number>>>();
  for (const row of rows) {
    const hours = byModel.get(row.model) ?? new Map<number, Map<number, number>>();
    byModel.set(row.model, hours);
    const buckets = hours.get(row.start) ?? new Map<number, number>();
    hours.set(row.start, buckets);
    buckets.set(row.bucket, row.count);
  }
  return (model) =>
    Array.from({ length: LATENCY_HOURS }, (_, i) => {
      const start = firstHour + i * HOUR_MS;
      const buckets = byModel.get(model)?.get(start);
      return { start: new Date(start).toISOString(), p50: buckets ? quantileMs(buckets, 0.5) : null, p95: buckets ? quantileMs(buckets, 0.95) : null };
    });
}

/** The UTC dates an incident covers, from its start to its resolve (or `until` while open), at most the history's 90. */
export function incidentDates(startedAt: string, resolvedAt: string | null, until: string): string[] {
  const last = Math.floor(Date.parse(resolvedAt ?? until) / DAY_MS) * DAY_MS;
  const first = Math.max(Math.floor(Date.parse(startedAt) / DAY_MS) * DAY_MS, last - (HISTORY_DAYS - 1) * DAY_MS);
  const dates: string[] = [];
  for (let day = first; day <= last; day += DAY_MS) dates.push(dateOf(day));
  return dates;
}

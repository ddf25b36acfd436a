import { cycleOf, formatUsd, type JsonObject, type KeyRecord, type Nanos, type Store } from '../../src/plugin-api.js';

/** The ledger window of GET /v1/usage: today (UTC) and the 29 days before it. */
export const USAGE_WINDOW_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

interface Sums {
  requests: number;
  /** Of the requests, those answered from the response cache (at no cost). */
  cachedRequests: number;
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  cacheWrite1hTokens: number;
  reasoningTokens: number;
  chargedNanos: Nanos;
  listNanos: Nanos;
}

/**
 * Token counts and money of a set of rows; money as exact decimal strings. `cached_tokens` and
 * `cache_write_tokens` are the prompt tokens read from and written to the vendors' prompt caches
 * (parts of `prompt_tokens`), `cache_write_1h_tokens` the writes kept for an hour (part of
 * `cache_write_tokens`, priced at the one-hour rate); `reasoning_tokens` the completion tokens the models spent
 * reasoning (part of `completion_tokens`). `upstream_cost_usd`
 * is what the calls cost the operator at the vendors' list prices (prompt and completion);
 * `list_cost_usd` is the same figure under its older name, which savings are measured from.
 */
function sumsJson(sums: Sums): JsonObject {
  return {
    requests: sums.requests,
    cached_requests: sums.cachedRequests,
    prompt_tokens: sums.promptTokens,
    completion_tokens: sums.completionTokens,
    total_tokens: sums.promptTokens + sums.completionTokens,
    cached_tokens: sums.cacheReadTokens,
    cache_write_tokens: sums.cacheWriteTokens,
    cache_write_1h_tokens: sums.cacheWrite1hTokens,
    reasoning_tokens: sums.reasoningTokens,
    cost_usd: formatUsd(sums.chargedNanos),
    upstream_cost_usd: formatUsd(sums.listNanos),
    list_cost_usd: formatUsd(sums.listNanos),
    savings_usd: formatUsd(sums.listNanos - sums.chargedNanos),
  };
}

const emptySums = (): Sums => ({
  requests: 0,
  cachedRequests: 0,
  promptTokens: 0,
  completionTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  reasoningTokens: 0,
  chargedNanos: 0,
  listNanos: 0,
});

function add(into: Sums, row: Sums): void {
  into.requests += row.requests;
  into.cachedRequests += row.cachedRequests;
  into.promptTokens += row.promptTokens;
  into.completionTokens += row.completionTokens;
  into.cacheReadTokens += row.cacheReadTokens;
  into.cacheWriteTokens += row.cacheWriteTokens;
  into.cacheWrite1hTokens += row.cacheWrite1hTokens;
  into.reasoningTokens += row.reasoningTokens;
  into.chargedNanos += row.chargedNanos;
  into.listNanos += row.listNanos;
}

/** A limit and what is left of it after the spent and held amounts; nulls for a limit not set. */
function limitJson(limit: Nanos | null, spent: Nanos, held: Nanos): { limit: string | null; remaining: string | null } {
  return limit === null ? { limit: null, remaining: null } : { limit: formatUsd(limit), remaining: formatUsd(Math.max(0, limit - spent - held)) };
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The body of `GET /v1/usage` (and of `GET /admin/v1/keys/:id/usage`): the key's ledger for
 * the last 30 days — totals, totals per endpoint, per-day per-model rows — and the current cycle's spend and
 * in-flight reservations against its ceiling and its upstream cost limit. Shape documented in
 * docs/money.md. With no key (`GET /admin/v1/usage`), the same over every key, without limits.
 */
export async function usageReport(store: Store, key: KeyRecord | null, now: number): Promise<JsonObject> {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const since = today - (USAGE_WINDOW_DAYS - 1) * DAY_MS;
  const cycle = cycleOf(now);
  const keyId = key?.id ?? null;
  const [days, spend] = await Promise.all([store.ledger.dailyUsage(keyId, since), store.ledger.cycleSpend(keyId, cycle.id, now)]);

  const totals = emptySums();
  const byDay = new Map<string, Sums & { day: string; model: string }>();
  const byEndpoint = new Map<string, Sums>();
  for (const row of days) {
    add(totals, row);
    const dayKey = `${row.day} ${row.model}`;
    if (!byDay.has(dayKey)) byDay.set(dayKey, { ...emptySums(), day: row.day, model: row.model });
    add(byDay.get(dayKey) as Sums, row);
    if (!byEndpoint.has(row.endpoint)) byEndpoint.set(row.endpoint, emptySums());
    add(byEndpoint.get(row.endpoint) as Sums, row);
  }
  const ceiling = limitJson(key?.monthlyCeilingNanos ?? null, spend.spent, spend.reserved);
  const upstream = limitJson(key?.monthlyUpstreamLimitNanos ?? null, spend.upstreamSpent, spend.upstreamReserved);
  return {
    object: 'usage',
    key_id: keyId,
    period: { start: iso(since), end: iso(now), days: USAGE_WINDOW_DAYS },
    totals: sumsJson(totals),
    cycle: {
      start: iso(cycle.start),
      end: iso(cycle.end),
      ceiling_usd: ceiling.limit,
      spent_usd: formatUsd(spend.spent),
      reserved_usd: formatUsd(spend.reserved),
      remaining_usd: ceiling.remaining,
      upstream_limit_usd: upstream.limit,
      upstream_spent_usd: formatUsd(spend.upstreamSpent),
      upstream_reserved_usd: formatUsd(spend.upstreamReserved),
      upstream_remaining_usd: upstream.remaining,
    },
    by_endpoint: [...byEndpoint].sort(([a], [b]) => (a < b ? -1 : 1)).map(([endpoint, sums]) => ({ endpoint, ...sumsJson(sums) })),
    data: [...byDay.values()].map((day) => ({ date: day.day, model: day.model, ...sumsJson(day) })),
  };
}

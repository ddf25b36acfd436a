import { cycleOf, formatUsd, type JsonObject, type KeyRecord, type Nanos, type Store } from '../../src/plugin-api.js';

/** The ledger window of GET /v1/usage: today (UTC) and the 29 days before it. */
export const USAGE_WINDOW_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

interface Sums {
  requests: number;
  promptTokens: number;
  completionTokens: number;
  chargedNanos: Nanos;
  listNanos: Nanos;
}

/** Token counts and money of a set of rows; money as exact decimal strings. */
function sumsJson(sums: Sums): JsonObject {
  return {
    requests: sums.requests,
    prompt_tokens: sums.promptTokens,
    completion_tokens: sums.completionTokens,
    total_tokens: sums.promptTokens + sums.completionTokens,
    cost_usd: formatUsd(sums.chargedNanos),
    list_cost_usd: formatUsd(sums.listNanos),
    savings_usd: formatUsd(sums.listNanos - sums.chargedNanos),
  };
}

const iso = (ms: number): string => new Date(ms).toISOString();

/**
 * The body of `GET /v1/usage` (and of `GET /admin/v1/keys/:id/usage`): the key's ledger for
 * the last 30 days — totals, per-day per-model rows — and the current cycle's spend and
 * in-flight reservations against its ceiling. Shape documented in docs/money.md. With no
 * key (`GET /admin/v1/usage`), the same over every key, without a ceiling.
 */
export async function usageReport(store: Store, key: KeyRecord | null, now: number): Promise<JsonObject> {
  const today = Math.floor(now / DAY_MS) * DAY_MS;
  const since = today - (USAGE_WINDOW_DAYS - 1) * DAY_MS;
  const cycle = cycleOf(now);
  const keyId = key?.id ?? null;
  const [days, spend] = await Promise.all([store.ledger.dailyUsage(keyId, since), store.ledger.cycleSpend(keyId, cycle.id)]);

  const totals: Sums = { requests: 0, promptTokens: 0, completionTokens: 0, chargedNanos: 0, listNanos: 0 };
  for (const day of days) {
    totals.requests += day.requests;
    totals.promptTokens += day.promptTokens;
    totals.completionTokens += day.completionTokens;
    totals.chargedNanos += day.chargedNanos;
    totals.listNanos += day.listNanos;
  }
  const ceiling = key?.monthlyCeilingNanos ?? null;
  return {
    object: 'usage',
    key_id: keyId,
    period: { start: iso(since), end: iso(now), days: USAGE_WINDOW_DAYS },
    totals: sumsJson(totals),
    cycle: {
      start: iso(cycle.start),
      end: iso(cycle.end),
      ceiling_usd: ceiling === null ? null : formatUsd(ceiling),
      spent_usd: formatUsd(spend.spent),
      reserved_usd: formatUsd(spend.reserved),
      remaining_usd: ceiling === null ? null : formatUsd(Math.max(0, ceiling - spend.spent - spend.reserved)),
    },
    data: days.map((day) => ({ date: day.day, model: day.model, ...sumsJson(day) })),
  };
}

import { costOf, cycleOf, type Call, type Cost, type KeyRecord, type LedgerRow, type ModelEntry } from '../../src/plugin-api.js';

const FREE: Cost = { charged: 0, list: 0 };

/** Milliseconds between two monotonic marks, to 0.1 ms; null when either was not reached. */
const span = (from: number, to: number): number | null => (from > 0 && to > 0 ? Math.round((to - from) * 10) / 10 : null);

/**
 * A finished call as its ledger row. The usage is the final one the pipeline settled: the
 * answering attempt's vendor count (failed attempts the vendor did not bill count nothing),
 * or, for a stream cut short, the deltas relayed to the caller.
 */
export function ledgerRow(call: Call, key: KeyRecord, model: ModelEntry): LedgerRow {
  const usage = call.usage ?? { promptTokens: 0, completionTokens: 0 };
  // An answer given again from the response cache costs the caller and the operator nothing.
  const cached = call.givenAnswer !== null;
  const cost = cached ? FREE : costOf(model, usage);
  const { upstreamStart, firstByte, completed } = call.timings;
  return {
    admittedAt: call.admittedAt,
    cycle: cycleOf(call.admittedAt).id,
    keyId: key.id,
    model: model.id,
    family: model.family,
    endpoint: call.endpoint.name,
    stream: call.stream,
    status: call.status,
    outcome: call.outcome,
    attempts: call.attempts,
    promptTokens: usage.promptTokens,
    completionTokens: usage.completionTokens,
    cacheReadTokens: usage.cachedTokens ?? 0,
    cacheWriteTokens: usage.cacheWriteTokens ?? 0,
    cacheWrite1hTokens: usage.cacheWrite1hTokens ?? 0,
    reasoningTokens: usage.reasoningTokens ?? 0,
    usageEstimated: usage.estimated === true,
    chargedNanos: cost.charged,
    listNanos: cost.list,
    upstreamMs: span(upstreamStart, completed),
    ttftMs: span(upstreamStart, firstByte),
    cached,
    deployment: call.upstreamAttempts.at(-1)?.deployment ?? null,
  };
}

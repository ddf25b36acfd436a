import type { SettledCall } from '../../src/plugin-api.js';
import { mintTimedId } from '../../src/toolkit/ids.js';
import { ID_PREFIX, type RequestRecord } from './store/log-store.js';

/** The longest model name kept as the caller asked for it (a name the catalogue does not know is the caller's text). */
const MAX_ASKED_MODEL = 200;

/** Milliseconds between two monotonic marks, to 0.1 ms; null when the later was not reached. */
const msBetween = (from: number, to: number): number | null => (to > 0 ? Math.round((to - from) * 10) / 10 : null);

/**
 * The model a call that was not resolved asked for, as it named it; null when it named none or
 * its body could not be read (a refusal of the body itself).
 */
function askedModel(call: SettledCall): string | null {
  if (!call.endpoint.upstream || call.rawJson === undefined) return call.params['model']?.slice(0, MAX_ASKED_MODEL) ?? null;
  try {
    return call.outline.model.slice(0, MAX_ASKED_MODEL) || null;
  } catch {
    return null;
  }
}

/**
 * A settled call of key `keyId` as its request-log record. Tokens and money are the ledger row's
 * (`call.ledgerRow`, built by the ledger's completion hook, which runs before this one): priced
 * once. A call with no row (refused before any upstream) used and cost nothing.
 */
export function requestRecord(call: SettledCall, keyId: string): RequestRecord {
  const row = call.ledgerRow;
  const { received, firstByte, completed } = call.timings;
  return {
    id: mintTimedId(ID_PREFIX, call.admittedAt),
    at: call.admittedAt,
    keyId,
    model: call.model?.id ?? askedModel(call),
    endpoint: call.endpoint.name,
    stream: call.stream,
    deployment: call.upstreamAttempts.at(-1)?.deployment ?? null,
    status: call.status,
    outcome: call.outcome,
    latencyMs: msBetween(received, completed) ?? 0,
    ttftMs: msBetween(received, firstByte),
    inputTokens: row?.promptTokens ?? 0,
    outputTokens: row?.completionTokens ?? 0,
    cacheReadTokens: row?.cacheReadTokens ?? 0,
    cacheWriteTokens: row?.cacheWriteTokens ?? 0,
    reasoningTokens: row?.reasoningTokens ?? 0,
    chargedNanos: row?.chargedNanos ?? 0,
    upstreamNanos: row?.listNanos ?? 0,
    attempts: call.attempts,
    cacheHit: row?.cached ?? false,
    traceId: call.traceId,
  };
}

import type { AttemptFailure, Call, ModelEntry, RetryDecision, RetryPolicy } from '../../src/plugin-api.js';

/** One step of the backoff cadence: `delayMs` ± `jitterMs`, uniformly. */
export interface CadenceStep {
  delayMs: number;
  jitterMs: number;
}

/** Spec 7.4: 500 ms ± 250, 1.5 s ± 500, 4 s ± 1 s, 10 s ± 2 s. */
export const SPEC_CADENCE: readonly CadenceStep[] = [
  { delayMs: 500, jitterMs: 250 },
  { delayMs: 1500, jitterMs: 500 },
  { delayMs: 4000, jitterMs: 1000 },
  { delayMs: 10_000, jitterMs: 2000 },
];

export interface RetrySettings {
  /** Retries of the same model per call (GATEWAY_RETRY_MAX). */
  max: number;
  /** Step n is the delay before retry n+1; the last step repeats if `max` exceeds the list. */
  cadence: readonly CadenceStep[];
  /** A retry is made only if this much of the deadline is left once its delay is over. */
  minAttemptMs: number;
  /** Canonical model ID → the sibling tried once on 503 (families the operator enabled). */
  fallback: ReadonlyMap<string, ModelEntry>;
  /** Uniform in [0, 1); injectable so tests can pin the jitter. */
  random?: () => number;
}

/** Failures without an upstream answer that are worth another attempt: connection errors and our own timeouts. */
const RETRYABLE_FAILURES: ReadonlySet<string> = new Set(['connect', 'connect_timeout', 'headers_timeout', 'reset', 'stream_idle']);
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * The delay before a retry of the same model, or null when the failure is not retried: a 429
 * only with a Retry-After (its delay is the upstream's), connection errors, timeouts, 502, 503
 * and 504 (also a vendor's overload signal mapped to 503) with the cadence.
 */
function retryDelay(failure: AttemptFailure, step: CadenceStep, random: () => number): number | null {
  if (failure.status === 429) return failure.retryAfterMs;
  const retryable = failure.status === 0 ? RETRYABLE_FAILURES.has(failure.code) : RETRYABLE_STATUSES.has(failure.status) || failure.error.status === 503;
  if (!retryable) return null;
  return Math.max(0, step.delayMs + (random() * 2 - 1) * step.jitterMs);
}

/**
 * The sibling that may answer a call instead of its model: the one configured for the model, if
 * the key may use it and it can honour the caller's limit on output tokens. The limit is within
 * the model's maximum (the capabilities plugin refuses more), so only a sibling with a lower
 * maximum can fall short of it: its vendor would refuse the request, and the ceiling reserves
 * no more than a model's maximum. Also what the ceiling reserves for (the retry plugin's onRequest).
 */
export function siblingFor(call: Call, fallback: ReadonlyMap<string, ModelEntry>): ModelEntry | null {
  const model = call.model;
  const sibling = model && fallback.get(model.id);
  if (!sibling) return null;
  const allowed = call.key?.models;
  if (allowed && !allowed.includes(sibling.id)) return null;
  const short = sibling.maxOutputTokens < model.maxOutputTokens && (call.outline.maxOutputTokens ?? 0) > sibling.maxOutputTokens;
  return short ? null : sibling;
}

/** A sibling is tried once, on 503 (over capacity). */
function fallbackFor(call: Call, failure: AttemptFailure, fallback: ReadonlyMap<string, ModelEntry>): ModelEntry | null {
  if (failure.error.status !== 503 || call.upstreamAttempts.some((a) => a.then === 'fallback')) return null;
  return siblingFor(call, fallback);
}

export function createRetryPolicy(settings: RetrySettings): RetryPolicy {
  const random = settings.random ?? Math.random;
  return {
    next(call: Call, failure: AttemptFailure, remainingMs: number): RetryDecision | null {
      if (remainingMs < settings.minAttemptMs) return null;
      const sibling = fallbackFor(call, failure, settings.fallback);
      if (sibling) return { kind: 'fallback', delayMs: 0, model: sibling };
      const retries = call.upstreamAttempts.filter((a) => a.then === 'retry').length;
      if (retries >= settings.max || settings.cadence.length === 0) return null;
      const step = settings.cadence[Math.min(retries, settings.cadence.length - 1)] as CadenceStep;
      const delayMs = retryDelay(failure, step, random);
      if (delayMs === null || delayMs + settings.minAttemptMs > remainingMs) return null;
      return { kind: 'retry', delayMs };
    },
  };
}

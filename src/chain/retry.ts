import type { ModelEntry } from '../catalogue/catalogue.js';
import type { GatewayError } from '../http/errors.js';
import type { Call } from './call.js';

/** An upstream attempt that produced no usable answer, before any byte reached the caller. */
export interface AttemptFailure {
  /** Upstream HTTP status, 0 when no answer arrived (connection error, timeout). */
  status: number;
  /** The bounded code recorded on the attempt: `'503'`, `'connect'`, `'connect_timeout'`, `'headers_timeout'`, `'reset'`, `'not_a_stream'`. */
  code: string;
  /** What the caller gets if nothing more is tried. */
  error: GatewayError;
  /** The delay the upstream asked for (`retry-after-ms` or `Retry-After`), in ms; null when it named none. */
  retryAfterMs: number | null;
}

/** Try again after `delayMs`: the same model (`retry`) or a sibling (`fallback`, with `model`). */
export type RetryDecision = { kind: 'retry'; delayMs: number } | { kind: 'fallback'; delayMs: number; model: ModelEntry };

/**
 * What the pipeline consults after a failed attempt (provided by the `retry` plugin). The
 * call's `upstreamAttempts` tell what was already tried; `remainingMs` is what is left until
 * the request's deadline. Null: give up and answer the failure.
 */
export interface RetryPolicy {
  next(call: Call, failure: AttemptFailure, remainingMs: number): RetryDecision | null;
}

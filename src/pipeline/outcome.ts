import type { Call } from '../chain/call.js';
import { toGatewayError, type GatewayError } from '../http/errors.js';
import { isStoreUnavailable } from '../store/unavailable.js';

/**
 * The one place that decides how a call ended: its `outcome` (for the ledger, metrics and the
 * status page) and the `status` the caller got, or would have got.
 */

/** Attempt codes that are the gateway's own timeouts: the outcome is `timeout`. */
export const TIMEOUT_CODES: ReadonlySet<string> = new Set(['connect_timeout', 'headers_timeout', 'stream_idle']);

export function succeeded(call: Call): void {
  call.outcome = 'ok';
  call.status = 200;
}

/**
 * A call that did not succeed. Returns the error the caller gets, or null when the caller went
 * away (status 499, nothing to send). The outcome: `client_disconnected` for a caller who left;
 * `rejected` for a refusal before any upstream attempt (a database that cannot be reached
 * included: 503); `timeout` when the last attempt ran out of time; `error` for the gateway's
 * own failure after an upstream answered (a 500: a bug, a store that failed; or the database
 * unreachable when the call was to be recorded: 503); otherwise `upstream_error`. A stream that already sent its 200 keeps status 200.
 */
export function failed(call: Call, thrown: unknown): GatewayError | null {
  if (call.callerGone) {
    call.outcome = 'client_disconnected';
    call.status = 499;
    return null;
  }
  const error = toGatewayError(thrown);
  const lastCode = call.upstreamAttempts.at(-1)?.code ?? null;
  if (call.attempts === 0) call.outcome = 'rejected';
  else if (lastCode !== null && TIMEOUT_CODES.has(lastCode)) call.outcome = 'timeout';
  else if (error.status === 500 || isStoreUnavailable(thrown)) call.outcome = 'error';
  else call.outcome = 'upstream_error';
  call.error = error;
  if (!call.res.headersSent) call.status = error.status;
  return error;
}

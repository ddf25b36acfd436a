import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Call } from '../chain/call.js';
import type { Chain } from '../chain/chain.js';
import { isSettled } from '../chain/phases.js';
import { GatewayError, isGatewayError } from '../http/errors.js';
import { sendJson } from '../http/respond.js';
import { isStoreUnavailable } from '../store/unavailable.js';
import { failed } from './outcome.js';

/**
 * Runs the completion hooks exactly once per call (the ledger's row, metrics, status), stamping
 * `timings.completed`. Callers await it before the last byte of a reply, so an answered call
 * is accounted for; a hook's failure is rethrown (the reply is then not acknowledged).
 */
export async function complete(call: Call, chain: Chain): Promise<void> {
  if (call.timings.completed !== 0) return;
  if (!isSettled(call)) throw new GatewayError(500, 'A call reached its completion before its outcome was decided.');
  call.timings.completed = performance.now();
  await chain.onComplete(call);
}

/**
 * Ends a call that did not succeed: its outcome decided (outcome.ts), the completion hooks run,
 * then the error in the envelope of the format called — as a JSON reply before any header went
 * out (with `x-should-retry: false` when the gateway itself already retried), as the stream's
 * last frames after.
 * Nothing is written to a caller who left.
 */
export async function endInFailure(call: Call, thrown: unknown, chain: Chain, log: Logger): Promise<void> {
  if (isStoreUnavailable(thrown)) log.warn({ err: thrown }, 'a call failed: the database is unavailable');
  else if (!isGatewayError(thrown) && !call.callerGone) log.error({ err: thrown }, 'unexpected failure in a call');
  const error = failed(call, thrown);
  try {
    await complete(call, chain);
  } catch (hookError) {
    log.error({ err: hookError }, 'completion hooks failed for a failed call');
  }
  const { res } = call;
  // Nothing more to say to a caller who left, or on a response the edge already ended.
  if (!error || res.destroyed || res.writableEnded) return;
  const format = call.endpoint.format.errors;
  if (res.headersSent) {
    res.end(call.streamFailure ? call.streamFailure(error) : format.frame(error));
    return;
  }
  // The gateway already retried: the official clients' own retries would multiply the attempts.
  if (call.upstreamAttempts.length > 1) res.setHeader('x-should-retry', 'false');
  sendJson(res, error.status, format.body(error), error.headers);
}

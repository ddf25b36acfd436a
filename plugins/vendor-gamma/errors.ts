import type { IncomingHttpHeaders } from 'node:http';
import type { Call, JsonObject } from '../../src/chain/call.js';
import type { GatewayError } from '../../src/http/errors.js';
import { upstreamError } from '../../src/http/upstream-status.js';

/**
 * Gamma error bodies (`{"error":{"message","type","param","code"}}`, the reference format's
 * own) → our envelope. `credential` is the gateway's own gamma key, never relayed (see
 * upstreamError).
 */
export function gammaError(status: number, headers: IncomingHttpHeaders, body: Buffer, credential: string | undefined): GatewayError {
  let detail: JsonObject | undefined;
  try {
    detail = (JSON.parse(body.toString('utf8')) as JsonObject)['error'] as JsonObject | undefined;
  } catch {
    detail = undefined;
  }
  const message = typeof detail?.['message'] === 'string' ? detail['message'] : undefined;
  const param = typeof detail?.['param'] === 'string' ? detail['param'] : null;
  return upstreamError('gamma', status, headers, { message, param }, credential);
}

/** An error object inside a 200 stream: the reference format gives it no status, so 502. */
export function gammaStreamError(error: JsonObject, credential: string | undefined): GatewayError {
  const message = typeof error['message'] === 'string' ? error['message'] : undefined;
  return upstreamError('gamma', 502, {}, { message, midStream: true }, credential);
}

/**
 * Records that an error thrown while reading a gamma answer (garbage, a truncated stream, a
 * body that is not the endpoint's) is the upstream's fault: outcome `upstream_error`, not the
 * `error` (the gateway failed) the pipeline would record for a translator's error. Returns it.
 */
export function upstreamFault(call: Call, error: unknown): unknown {
  call.outcome = 'upstream_error';
  return error;
}

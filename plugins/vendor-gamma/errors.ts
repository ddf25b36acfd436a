import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError, JsonObject } from '../../src/plugin-api.js';
import { upstreamError } from '../../src/toolkit/vendor.js';

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

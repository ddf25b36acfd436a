import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError, JsonObject } from '../../src/plugin-api.js';
import { upstreamError } from '../../src/toolkit/vendor.js';

/**
 * Alpha error bodies (`{"type":"error","error":{"type","message"}}`) → our envelope (docs/vendor-formats.md#alpha-errors). The error type names the status where the HTTP status does not (an overloaded
 * 529 behind a proxy that rewrote it, an `event: error` inside a 200 stream).
 */

const STATUS_OF_TYPE: Readonly<Record<string, number>> = {
  authentication_error: 401,
  billing_error: 402,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  timeout_error: 504,
  overloaded_error: 529,
};

const CONTEXT_TOO_LONG = /prompt is too long|context window|context length/i;

interface AlphaErrorDetail {
  type: string | undefined;
  message: string | undefined;
}

function detailOf(body: unknown): AlphaErrorDetail {
  const error = (body as JsonObject | null)?.['error'] as JsonObject | undefined;
  return {
    type: typeof error?.['type'] === 'string' ? error['type'] : undefined,
    message: typeof error?.['message'] === 'string' ? error['message'] : undefined,
  };
}

function parse(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return null;
  }
}

/**
 * `invalid_request_error` also stands for 4xx statuses without a type of their own, and
 * `api_error` for any server-side failure (500, or a 503 in front of the vendor): the HTTP
 * status decides then (a 500 is a 502, a 503 stays a retried 503; mid-stream: 502).
 */
function hint(type: string | undefined): number | undefined {
  return type === undefined ? undefined : STATUS_OF_TYPE[type];
}

/** `credential` is the gateway's own alpha key, never relayed (see upstreamError). */
export function alphaError(status: number, headers: IncomingHttpHeaders, body: Buffer, credential: string | undefined): GatewayError {
  const { type, message } = detailOf(parse(body));
  const code = message && CONTEXT_TOO_LONG.test(message) ? 'context_length_exceeded' : undefined;
  return upstreamError('alpha', status, headers, { message, statusHint: hint(type), code }, credential);
}

/** An `event: error` inside a stream: no HTTP status but the error type's. */
export function alphaStreamError(event: JsonObject, credential: string | undefined): GatewayError {
  const { type, message } = detailOf(event);
  const status = type === 'invalid_request_error' ? 400 : (hint(type) ?? 502);
  return upstreamError('alpha', status, {}, { message: message ?? type, midStream: true }, credential);
}

import type { IncomingHttpHeaders } from 'node:http';
import type { GatewayError, JsonObject } from '../../src/plugin-api.js';
import { upstreamError } from '../../src/toolkit/vendor.js';

/**
 * Beta error bodies (`{"error":{"code","message","status","details"}}`, also wrapped in an
 * array by the JSON-array stream framing) → our envelope (docs/vendor-formats.md#beta-errors).
 */

const STATUS_OF: Readonly<Record<string, number>> = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  INTERNAL: 500,
  UNKNOWN: 500,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
};

const CONTEXT_TOO_LONG = /input token count .* exceeds|exceeds the maximum number of tokens|input is too long/i;

interface BetaErrorDetail {
  status: string | undefined;
  message: string | undefined;
  /** `details[].reason`, e.g. API_KEY_INVALID. */
  reasons: string[];
}

export function betaErrorDetail(body: unknown): BetaErrorDetail {
  const root = (Array.isArray(body) ? body[0] : body) as JsonObject | null | undefined;
  const error = root?.['error'] as JsonObject | undefined;
  const details = Array.isArray(error?.['details']) ? (error['details'] as JsonObject[]) : [];
  return {
    status: typeof error?.['status'] === 'string' ? error['status'] : undefined,
    message: typeof error?.['message'] === 'string' ? error['message'] : undefined,
    reasons: details.flatMap((detail) => (typeof detail['reason'] === 'string' ? [detail['reason']] : [])),
  };
}

/** The status a beta error means: a bad key is a 400 on the wire but our credential's problem. */
function hint(detail: BetaErrorDetail, httpStatus: number | null): number | undefined {
  if (detail.reasons.includes('API_KEY_INVALID')) return 401;
  // Out of prepaid credit is RESOURCE_EXHAUSTED too, but sent as 402: keep the HTTP status then.
  if (httpStatus !== null) return httpStatus === 402 ? undefined : detail.status ? STATUS_OF[detail.status] : undefined;
  return (detail.status ? STATUS_OF[detail.status] : undefined) ?? 502;
}

/** `credential` is the gateway's own beta key, never relayed (see upstreamError). */
export function betaError(status: number, headers: IncomingHttpHeaders, body: Buffer, credential: string | undefined): GatewayError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    parsed = null;
  }
  const detail = betaErrorDetail(parsed);
  const code = detail.message && CONTEXT_TOO_LONG.test(detail.message) ? 'context_length_exceeded' : undefined;
  return upstreamError('beta', status, headers, { message: detail.message, statusHint: hint(detail, status), code }, credential);
}

/** An error object inside a 200 stream. */
export function betaStreamError(event: JsonObject, credential: string | undefined): GatewayError {
  const detail = betaErrorDetail(event);
  const status = hint(detail, null) as number;
  return upstreamError('beta', status, {}, { message: detail.message ?? detail.status, midStream: true }, credential);
}

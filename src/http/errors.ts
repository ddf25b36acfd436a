import { isStoreUnavailable } from '../store/unavailable.js';
import { cutForLog } from './redact.js';

/**
 * The one place that knows the error table (docs/api-contract.md#status-table): every JSON error the
 * gateway sends is a GatewayError rendered by `errorBody`.
 */

export type ErrorStatus = 400 | 401 | 402 | 403 | 404 | 413 | 429 | 500 | 502 | 503 | 504;

interface ErrorClass {
  readonly type: string;
  readonly code: string;
}

/** status → (type, default code), from docs/api-contract.md#status-table. */
const ERROR_TABLE: Readonly<Record<ErrorStatus, ErrorClass>> = {
  400: { type: 'invalid_request', code: 'invalid_request' },
  401: { type: 'invalid_api_key', code: 'invalid_api_key' },
  402: { type: 'quota_exceeded', code: 'monthly_cap_exceeded' },
  403: { type: 'model_not_allowed', code: 'model_not_allowed' },
  404: { type: 'not_found', code: 'not_found' },
  413: { type: 'payload_too_large', code: 'payload_too_large' },
  429: { type: 'rate_limited', code: 'rate_limit_exceeded' },
  500: { type: 'internal_error', code: 'internal_error' },
  502: { type: 'upstream_error', code: 'bad_gateway' },
  503: { type: 'unavailable', code: 'service_unavailable' },
  504: { type: 'upstream_timeout', code: 'upstream_timeout' },
};

export interface ErrorOptions {
  /** A more specific code than the table's default (e.g. `invalid_json`, `model_not_found`). */
  code?: string;
  /** The request field at fault; null when none. */
  param?: string | null;
  /** Extra response headers (e.g. Retry-After). */
  headers?: Readonly<Record<string, string>>;
}

export interface ErrorEnvelope {
  error: { message: string; type: string; code: string; param: string | null };
}

export class GatewayError extends Error {
  readonly status: ErrorStatus;
  readonly type: string;
  readonly code: string;
  readonly param: string | null;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: ErrorStatus, message: string, options: ErrorOptions = {}) {
    if (status < 500) {
      // A refusal is an answer, not a fault: nothing reads its stack, and capturing one was 7 %
      // of an invalid-key refusal's CPU. A 5xx keeps its stack for the log.
      const depth = Error.stackTraceLimit;
      Error.stackTraceLimit = 0;
      super(message);
      Error.stackTraceLimit = depth;
    } else {
      super(message);
    }
    this.name = 'GatewayError';
    const row = ERROR_TABLE[status];
    this.status = status;
    this.type = row.type;
    this.code = options.code ?? row.code;
    this.param = options.param ?? null;
    this.headers = options.headers ?? {};
  }

  toEnvelope(): ErrorEnvelope {
    return { error: { message: this.message, type: this.type, code: this.code, param: this.param } };
  }
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}

/**
 * Anything thrown that is not a GatewayError becomes a 500 that reveals nothing of its cause;
 * a database that cannot be reached (or did not answer in time) is a 503.
 */
export function toGatewayError(value: unknown): GatewayError {
  if (isGatewayError(value)) return value;
  if (isStoreUnavailable(value)) return new GatewayError(503, 'The gateway cannot reach its database right now; try again shortly.');
  return new GatewayError(500, 'The gateway hit an unexpected condition; the request may have partly succeeded, check GET /v1/usage before retrying.');
}

export const invalidRequest = (message: string, param: string | null = null, code?: string): GatewayError =>
  new GatewayError(400, message, { param, ...(code ? { code } : {}) });

/** The 404 of a model name no catalogue entry answers to; the name as the caller wrote it, cut and with key-shaped text redacted. */
export const modelNotFound = (name: string): GatewayError =>
  new GatewayError(404, `The model '${cutForLog(name)}' does not exist. GET /v1/models lists the available models.`, {
    code: 'model_not_found',
    param: 'model',
  });

import type { IncomingHttpHeaders } from 'node:http';
import { GatewayError, type ErrorStatus } from './errors.js';
import { scrubSecrets } from './redact.js';

/**
 * Maps an upstream's HTTP status to ours (docs/api-contract.md#upstream-status-mapping), for every family. Vendor
 * translators extract the message (and, where the vendor has one, a finer status from the body)
 * and call `upstreamError`.
 */
export function mapUpstreamStatus(status: number): ErrorStatus {
  if (status === 429) return 429;
  if (status === 413) return 413;
  if (status === 404) return 404;
  if (status === 408 || status === 504) return 504;
  if (status === 503 || status === 529) return 503;
  // Our own credential or account at the vendor was refused: not the caller's fault.
  if (isAccountProblem(status)) return 502;
  if (status >= 500) return 502;
  return 400;
}

/** 401/403 (our credential refused) and 402 (our vendor account out of credit): the gateway's problem, not the caller's. */
const isAccountProblem = (status: number): boolean => status === 401 || status === 402 || status === 403;

/** A 429's wait when its upstream named none: every 429 of the gateway's says when to come back. */
const DEFAULT_RETRY_AFTER_S = '1';

/** Headers of upstream pressure passed through to the caller; a 429 without `Retry-After` gets one (from `retry-after-ms`, else the default). */
function pressureHeaders(headers: IncomingHttpHeaders, mapped: number): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of ['retry-after', 'retry-after-ms'] as const) {
    const value = headers[name];
    if (typeof value === 'string' && value.trim() !== '') out[name] = value.trim();
  }
  if (mapped === 429 && out['retry-after'] === undefined) {
    const ms = Number(out['retry-after-ms']);
    out['retry-after'] = ms > 0 && Number.isFinite(ms) ? String(Math.ceil(ms / 1000)) : DEFAULT_RETRY_AFTER_S;
  }
  return out;
}

export interface UpstreamErrorDetail {
  /** The upstream's own message, if its body had one. */
  message?: string | undefined;
  param?: string | null | undefined;
  /**
   * A status the vendor's body implies more precisely than its HTTP status, from the vendor's
   * error type (alpha `overloaded_error` → 529, beta `API_KEY_INVALID` sent as 400 → 401), or
   * the only status there is for an error inside a 200 stream.
   */
  statusHint?: number | undefined;
  /** A more specific code, e.g. `context_length_exceeded` when the vendor's message says so. */
  code?: string | undefined;
  /** An error event inside a stream that had begun (200), not an error answer. */
  midStream?: boolean;
}

/**
 * The caller's error for a vendor's. When the vendor refused our own credential or account,
 * its message is not relayed at all (vendors echo the key they were sent); any other message
 * is relayed without the family's `credential` or anything shaped like a secret.
 */
export function upstreamError(
  family: string,
  status: number,
  headers: IncomingHttpHeaders,
  detail: UpstreamErrorDetail,
  credential: string | undefined,
): GatewayError {
  const effective = detail.statusHint ?? status;
  const mapped = mapUpstreamStatus(effective);
  const own = detail.message?.trim();
  let message: string;
  if (isAccountProblem(effective)) {
    message = `The ${family} upstream refused the gateway's own credentials or account. This is a gateway configuration problem, not your key.`;
  } else if (detail.midStream) {
    message = `The ${family} upstream failed mid-stream: ${own ? scrubSecrets(own, credential) : 'unknown error'}`;
  } else {
    message = own ? scrubSecrets(own, credential) : `The ${family} upstream answered ${status} without a readable error message.`;
  }
  const code = mapped === 404 ? 'model_not_found' : mapped === 400 ? detail.code : undefined;
  const vendorParam = detail.param ? scrubSecrets(detail.param, credential) : null;
  const param = mapped === 400 ? vendorParam : mapped === 404 ? 'model' : null;
  return new GatewayError(mapped, message, { param, headers: pressureHeaders(headers, mapped), ...(code ? { code } : {}) });
}

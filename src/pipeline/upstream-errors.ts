import { GatewayError } from '../http/errors.js';
import type { UpstreamFailure } from '../proxy/proxy-core.js';

/** Limits named in the messages of the gateway's own timeouts. */
export interface FailureLimits {
  upstreamMs: number;
  streamIdleMs: number;
}

/** A failure to get an answer from an upstream → our envelope (502 or 504), never naming credentials. */
export function upstreamFailureError(failure: UpstreamFailure, family: string | null, limits: FailureLimits): GatewayError {
  const upstream = family ? `The ${family} upstream` : 'The upstream';
  switch (failure.kind) {
    case 'headers_timeout':
      return new GatewayError(
        504,
        `${upstream} did not answer within ${limits.upstreamMs / 1000} s. Re-issue the request, lower max_tokens, or stream the reply.`,
      );
    case 'connect_timeout':
      return new GatewayError(504, `Could not connect to ${upstream.replace('The ', 'the ')} in time. Re-issue the request or lower max_tokens.`);
    case 'stream_idle':
      return new GatewayError(504, `${upstream} went silent for ${limits.streamIdleMs / 1000} s in the middle of its reply, and the request was ended.`);
    default:
      return new GatewayError(502, `${upstream} could not be reached or failed: ${failure.message}.`);
  }
}

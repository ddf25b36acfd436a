import { GatewayError } from '../http/errors.js';
import type { UpstreamFailure } from '../proxy/proxy-core.js';

/** A failure to get an answer from an upstream → our envelope (502 or 504), never naming credentials. */
export function upstreamFailureError(failure: UpstreamFailure, family: string, timeoutMs: number): GatewayError {
  switch (failure.kind) {
    case 'headers_timeout':
      return new GatewayError(
        504,
        `The ${family} upstream did not answer within ${timeoutMs / 1000} s. Re-issue the request, lower max_tokens, or stream the reply.`,
      );
    case 'connect_timeout':
      return new GatewayError(504, `Could not connect to the ${family} upstream in time. Re-issue the request or lower max_tokens.`);
    case 'stream_idle':
      return new GatewayError(504, `The ${family} upstream went silent for ${timeoutMs / 1000} s in the middle of its reply, and the request was ended.`);
    default:
      return new GatewayError(502, `The ${family} upstream could not be reached or failed: ${failure.message}.`);
  }
}

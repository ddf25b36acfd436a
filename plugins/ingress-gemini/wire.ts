import type { ErrorStatus, GatewayError, JsonObject } from '../../src/plugin-api.js';
import type { ErrorFormat } from '../../src/toolkit/ingress.js';
import type { FinishReason, ReplyUsage } from '../../src/toolkit/neutral.js';

/** What the Gemini format's reply, stream and errors share (docs/formats/gemini.md). */

/** The Gemini wire: no vendor passes a caller's body of this format through (beta's request is written from the neutral one). */
export const GEMINI_WIRE = 'gemini-generate-content';

/** One stream chunk as js-genai parses it: exactly one `data:` line of JSON and a blank line, nothing else (no `event:`, no comment, no `[DONE]`). */
export const geminiChunk = (data: JsonObject): string => `data: ${JSON.stringify(data)}\r\n\r\n`;

const FINISH_REASONS: Readonly<Record<FinishReason, string>> = { stop: 'STOP', length: 'MAX_TOKENS', tool_calls: 'STOP', content_filter: 'SAFETY' };

/** A finish → `finishReason`: function calls end with `STOP` too (the format has no tool reason). */
export const finishReason = (finish: FinishReason): string => FINISH_REASONS[finish];

/**
 * The vendor placeholder Gemini CLI puts on the first call of each model turn that has no
 * signature: read as no state (beta gets its placeholder again, the other families nothing).
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

/** Neutral usage → `usageMetadata`: the prompt includes its cached part; candidates are the visible output, thoughts the reasoning. */
export function usageMetadata(usage: ReplyUsage): JsonObject {
  const thoughts = usage.reasoningTokens ?? 0;
  const out: JsonObject = {
    promptTokenCount: usage.promptTokens,
    candidatesTokenCount: Math.max(0, usage.completionTokens - thoughts),
    totalTokenCount: usage.promptTokens + usage.completionTokens,
  };
  if (usage.cachedTokens) out['cachedContentTokenCount'] = usage.cachedTokens;
  if (thoughts) out['thoughtsTokenCount'] = thoughts;
  return out;
}

/** Our statuses as Google's canonical codes (the HTTP statuses stay those of docs/api-contract.md#status-table). */
const STATUSES: Readonly<Record<ErrorStatus, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  402: 'RESOURCE_EXHAUSTED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/**
 * The error's `details`: our code and param as an `ErrorInfo`, and on a 429 a `RetryInfo` with
 * the wait (Gemini CLI reads `retryDelay`, never `Retry-After`).
 */
function details(error: GatewayError): JsonObject[] {
  const info: JsonObject = { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: error.code, domain: 'gateway' };
  if (error.param !== null) info['metadata'] = { param: error.param };
  const wait = error.headers['retry-after'];
  if (error.status !== 429 || wait === undefined) return [info];
  return [info, { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${Number(wait)}s` }];
}

/** `{"error": {code, message, status, details}}`: Google's error shape, with our HTTP status as `code`. */
export const geminiError = (error: GatewayError): JsonObject => ({
  error: { code: error.status, message: error.message, status: STATUSES[error.status], details: details(error) },
});

/**
 * Before any byte: the JSON body. After the 200: the same JSON object as a bare write of its own,
 * not framed as `data:` — the only way js-genai raises an error mid-stream (a framed one would be
 * read as a chunk without candidates).
 */
export const geminiErrors: ErrorFormat = {
  body: (error) => JSON.stringify(geminiError(error)),
  frame: (error) => JSON.stringify(geminiError(error)),
};

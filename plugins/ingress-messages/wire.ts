import type { ErrorStatus, GatewayError, JsonObject } from '../../src/plugin-api.js';
import type { ErrorFormat } from '../../src/toolkit/ingress.js';
import type { FinishReason, ReasoningState, ReplyUsage } from '../../src/toolkit/neutral.js';

/** What the Messages format's reply, stream and errors share (docs/formats/messages.md). */

/** The Messages wire: a vendor whose upstream speaks it (alpha) passes the caller's body through. */
export const MESSAGES_WIRE = 'anthropic-messages';

/** One SSE frame: `event:` and `data:` on every frame (the official SDK drops frames without an event name). */
export const messagesEvent = (data: JsonObject & { type: string }): string => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;

const STOP_REASONS: Readonly<Record<FinishReason, string>> = { stop: 'end_turn', length: 'max_tokens', tool_calls: 'tool_use', content_filter: 'refusal' };

/**
 * A finish → `stop_reason`. Returned tool calls make it `tool_use` (clients run the tools only
 * then), except when the output was cut at max_tokens: a call's input may be incomplete, and
 * the Messages API says `max_tokens` there too. Otherwise a refusal (`refused`: the reply holds
 * the model's refusal, written as text) makes it `refusal`. A `tool_calls` finish without calls
 * is `end_turn`.
 */
export function stopReason(finish: FinishReason, calledTools: boolean, refused: boolean): string {
  if (calledTools) return finish === 'length' ? 'max_tokens' : 'tool_use';
  if (refused) return 'refusal';
  return finish === 'tool_calls' ? 'end_turn' : STOP_REASONS[finish];
}

/**
 * Neutral usage → Messages usage: `input_tokens` excludes the prompt tokens read from the cache
 * (`cache_read_input_tokens`) and written to it (`cache_creation_input_tokens`).
 */
export function messagesUsage(usage: ReplyUsage): JsonObject {
  const cached = usage.cachedTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  return {
    input_tokens: Math.max(0, usage.promptTokens - cached - written),
    output_tokens: usage.completionTokens,
    cache_creation_input_tokens: written,
    cache_read_input_tokens: cached,
  };
}

/** Whether a state is alpha's redacted thinking, written as a `redacted_thinking` block. */
export const isRedacted = (state: ReasoningState | null): state is ReasoningState & { kind: 'redacted' } =>
  state?.family === 'alpha' && state.kind === 'redacted';

/** Our statuses as the Messages error types (the statuses stay those of docs/api-contract.md#status-table). */
const ERROR_TYPES: Readonly<Record<ErrorStatus, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
};

/** `{"type":"error","error":{type, message, code, param}}`: the Messages error shape, carrying our code and param too. */
export const messagesError = (error: GatewayError): JsonObject & { type: 'error' } => ({
  type: 'error',
  error: { type: ERROR_TYPES[error.status], message: error.message, code: error.code, param: error.param },
});

export const messagesErrors: ErrorFormat = {
  body: (error) => JSON.stringify(messagesError(error)),
  frame: (error) => messagesEvent(messagesError(error)),
};

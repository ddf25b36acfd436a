import type { JsonObject } from '../../src/plugin-api.js';
import type { FinishReason, Reply, ReplyChoice, ReplyUsage } from '../../src/toolkit/neutral.js';
import { tokenCount } from '../../src/toolkit/vendor.js';

/** A reference chat completion from the gamma upstream → the neutral reply (for callers of another format). */

const FINISH: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
};

export const gammaFinish = (reason: unknown): FinishReason => FINISH[String(reason)] ?? 'stop';

/** Reference usage, with the cached and reasoning details where the upstream gave them. */
export function gammaReplyUsage(raw: unknown): ReplyUsage {
  const usage = (raw ?? {}) as JsonObject;
  const out: ReplyUsage = { promptTokens: tokenCount(usage['prompt_tokens']), completionTokens: tokenCount(usage['completion_tokens']) };
  const cached = tokenCount((usage['prompt_tokens_details'] as JsonObject | undefined)?.['cached_tokens']);
  const reasoning = tokenCount((usage['completion_tokens_details'] as JsonObject | undefined)?.['reasoning_tokens']);
  if (cached) out.cachedTokens = cached;
  if (reasoning) out.reasoningTokens = reasoning;
  return out;
}

function choice(raw: JsonObject): ReplyChoice {
  const message = (raw['message'] ?? {}) as JsonObject;
  const calls = Array.isArray(message['tool_calls']) ? (message['tool_calls'] as JsonObject[]) : [];
  const toolCalls = calls.map((call) => {
    const fn = (call['function'] ?? {}) as JsonObject;
    return { id: String(call['id'] ?? ''), name: String(fn['name'] ?? ''), arguments: typeof fn['arguments'] === 'string' ? fn['arguments'] : '{}' };
  });
  const refusal = typeof message['refusal'] === 'string' ? message['refusal'] : null;
  // A refusal comes with `content: null`, as a tool call does: no text rather than an empty one.
  const content = typeof message['content'] === 'string' ? message['content'] : toolCalls.length || refusal !== null ? null : '';
  return { content, refusal, toolCalls, finish: gammaFinish(raw['finish_reason']) };
}

/** A reference chat completion whose shape was checked (a non-empty `choices`). */
export function gammaReply(body: JsonObject): Reply {
  const choices = Array.isArray(body['choices']) ? (body['choices'] as JsonObject[]) : [];
  return {
    choices: [...choices].sort((a, b) => tokenCount(a['index']) - tokenCount(b['index'])).map(choice),
    usage: gammaReplyUsage(body['usage']),
  };
}

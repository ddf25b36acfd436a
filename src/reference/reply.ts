import type { JsonObject } from '../chain/call.js';
import type { Reply, ReplyChoice, ReplyEnvelope, ReplyUsage } from '../neutral/reply.js';

/**
 * The neutral reply (src/neutral/reply.ts) rendered into the reference format: a chat
 * completion, or a legacy text completion for `/v1/completions`.
 */

/** Reference usage: prompt + completion = total always; details only where the vendor gave them. */
export function referenceUsage(usage: ReplyUsage): JsonObject {
  const out: JsonObject = {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
  if (usage.cachedTokens) out['prompt_tokens_details'] = { cached_tokens: usage.cachedTokens };
  if (usage.reasoningTokens) out['completion_tokens_details'] = { reasoning_tokens: usage.reasoningTokens };
  return out;
}


function message(choice: ReplyChoice): JsonObject {
  const out: JsonObject = { role: 'assistant', content: choice.content, refusal: null };
  if (choice.toolCalls.length) {
    out['tool_calls'] = choice.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
  }
  return out;
}

export function chatCompletionBody(reply: Reply, envelope: ReplyEnvelope): JsonObject {
  return {
    id: envelope.id,
    object: 'chat.completion',
    created: envelope.created,
    model: envelope.model,
    choices: reply.choices.map((choice, index) => ({ index, message: message(choice), logprobs: choice.logprobs ?? null, finish_reason: choice.finish })),
    usage: referenceUsage(reply.usage),
  };
}

/** A legacy completion has only text: a reply that called tools cannot be one. */
export function textCompletionBody(reply: Reply, envelope: ReplyEnvelope): JsonObject {
  return {
    id: envelope.id,
    object: 'text_completion',
    created: envelope.created,
    model: envelope.model,
    choices: reply.choices.map((choice, index) => ({ text: choice.content ?? '', index, logprobs: null, finish_reason: choice.finish })),
    usage: referenceUsage(reply.usage),
  };
}

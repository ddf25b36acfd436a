import type { JsonObject, Usage } from '../chain/call.js';

/**
 * The vendor-neutral shape of one model reply, which every non-reference translator produces
 * and which is rendered here into the reference format: a chat completion, or a legacy
 * text completion for `/v1/completions`.
 */

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ReplyToolCall {
  id: string;
  name: string;
  /** The arguments as a JSON string. */
  arguments: string;
}

export interface ReplyChoice {
  /** The text, or null when there is none. */
  content: string | null;
  toolCalls: ReplyToolCall[];
  finish: FinishReason;
  /** Reference-format `logprobs` (`{content: [...], refusal}`), when asked for and given. */
  logprobs?: JsonObject | null;
}

export interface ReplyUsage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens read from a cache (a subset of promptTokens), when the vendor says. */
  cachedTokens?: number;
  /** Reasoning tokens (a subset of completionTokens), when the vendor says. */
  reasoningTokens?: number;
}

export interface Reply {
  choices: ReplyChoice[];
  usage: ReplyUsage;
}

/** What every reply and chunk of one call shares. */
export interface ReplyEnvelope {
  id: string;
  /** Unix seconds, fixed per request. */
  created: number;
  /** The canonical model ID. */
  model: string;
}

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

/** The ledger's view of a reply's usage. */
export const ledgerUsage = (usage: ReplyUsage): Usage => ({ promptTokens: usage.promptTokens, completionTokens: usage.completionTokens });

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

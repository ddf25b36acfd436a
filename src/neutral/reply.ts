import type { JsonObject, Usage } from '../chain/call.js';
import type { ReasoningState } from './request.js';

/**
 * The neutral reply: what every vendor translator reads its vendor's answer into, and what
 * every ingress format renders for its caller.
 */

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

export interface ReplyToolCall {
  id: string;
  name: string;
  /** The arguments as a JSON string. */
  arguments: string;
}

/** Reasoning the model showed (thinking text; may be empty) and the opaque state to hand back. */
export interface ReplyReasoning {
  text: string;
  state: ReasoningState | null;
}

export interface ReplyChoice {
  /** The text, or null when there is none. */
  content: string | null;
  /** The model's refusal to answer (a vendor's own field, gamma's `message.refusal`), or null when there is none. */
  refusal: string | null;
  /** Reasoning runs before the content, in order (empty when the vendor showed none). */
  reasoning?: ReplyReasoning[];
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
  /** Prompt tokens written to a cache (a subset of promptTokens), when the vendor says (alpha's `cache_creation_input_tokens`). */
  cacheWriteTokens?: number;
  /** Of cacheWriteTokens, those written for an hour (alpha's `cache_creation.ephemeral_1h_input_tokens`). */
  cacheWrite1hTokens?: number;
  /** Reasoning tokens (a subset of completionTokens), when the vendor says. */
  reasoningTokens?: number;
  /** The gateway's estimate, for a reply whose vendor gave no counts (the ledger row says `usage_estimated`). */
  estimated?: boolean;
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

/** The ledger's view of a reply's usage: the counts it prices (reasoning is a part of the output, priced alike), and the reasoning count the request log shows. */
export function ledgerUsage(usage: ReplyUsage): Usage {
  const out: Usage = { promptTokens: usage.promptTokens, completionTokens: usage.completionTokens };
  if (usage.cachedTokens) out.cachedTokens = usage.cachedTokens;
  if (usage.cacheWriteTokens) out.cacheWriteTokens = usage.cacheWriteTokens;
  if (usage.cacheWrite1hTokens) out.cacheWrite1hTokens = usage.cacheWrite1hTokens;
  if (usage.reasoningTokens) out.reasoningTokens = usage.reasoningTokens;
  if (usage.estimated) out.estimated = true;
  return out;
}

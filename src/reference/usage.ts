import type { JsonObject } from '../chain/call.js';
import type { ReplyUsage } from '../neutral/reply.js';

/**
 * The reference format's usage object, from the neutral reply's: what the chat ingress renders,
 * and what gamma's translator writes when a cut-short stream had no usage of its own.
 */

/**
 * Reference usage: prompt + completion = total always; details only where the vendor gave them.
 * Prompt tokens written to a vendor's cache have no reference field: they are
 * `cache_creation_input_tokens` beside the totals, as Anthropic's and LiteLLM's OpenAI-compatible
 * answers name them (docs/caching.md#usage).
 */
export function referenceUsage(usage: ReplyUsage): JsonObject {
  const out: JsonObject = {
    prompt_tokens: usage.promptTokens,
    completion_tokens: usage.completionTokens,
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
  if (usage.cachedTokens) out['prompt_tokens_details'] = { cached_tokens: usage.cachedTokens };
  if (usage.cacheWriteTokens) out['cache_creation_input_tokens'] = usage.cacheWriteTokens;
  if (usage.reasoningTokens) out['completion_tokens_details'] = { reasoning_tokens: usage.reasoningTokens };
  return out;
}

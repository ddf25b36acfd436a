import type { Attributes } from '@opentelemetry/api';
import { costOf, type Call, type SettledCall } from '../../src/plugin-api.js';

/**
 * The GenAI semantic conventions' names and values as the gateway fills them, shared by the
 * spans and the metrics. Every value comes from the call's bounded facts (the catalogue's model
 * ids, the family, an attempt's code) or its counts: never a prompt, a reply, a header or a key.
 */

/** `gen_ai.operation.name` of a call's endpoint: the conventions' names, `count_tokens` for a count (they name none). */
export function operationOf(call: Call): string {
  switch (call.endpoint.operation) {
    case 'embed':
      return 'embeddings';
    case 'count_tokens':
      return 'count_tokens';
    default:
      // The legacy completions endpoint is the conventions' own case; every other reply is a chat.
      return call.endpoint.name === 'completions' ? 'text_completion' : 'chat';
  }
}

/** `error.type` of a settled call that reached an upstream: its last attempt's code, else how it ended; undefined when it succeeded. */
export function callErrorType(call: SettledCall): string | undefined {
  if (call.outcome === 'ok') return undefined;
  return call.upstreamAttempts.at(-1)?.code ?? call.outcome;
}

/**
 * The attributes of a call's GenAI operation, for its metrics: the model asked (the first
 * attempt's) and the model that answered (a fallback's sibling), the family as the provider.
 */
export function operationAttributes(call: SettledCall): Attributes {
  const first = call.upstreamAttempts[0];
  const attributes: Attributes = {
    'gen_ai.operation.name': operationOf(call),
    'gen_ai.provider.name': call.family ?? first?.family,
    'gen_ai.request.model': first?.model ?? call.model?.id,
    'gen_ai.response.model': call.model?.id,
  };
  const errorType = callErrorType(call);
  if (errorType !== undefined) attributes['error.type'] = errorType;
  return attributes;
}

/**
 * `gen_ai.response.id` and `gen_ai.response.finish_reasons` of an answered call, as its caller
 * got them (the call's `answerNotes`): a stream cut short has its id and no reasons.
 */
export function answerAttributes(call: Call): Attributes {
  const notes = call.answerNotes;
  if (!notes) return {};
  const attributes: Attributes = {};
  if (notes.id !== null) attributes['gen_ai.response.id'] = notes.id;
  // One per choice, in choice order (a hole: a choice that never finished).
  const reasons = notes.finishReasons.filter((reason) => typeof reason === 'string');
  if (reasons.length) attributes['gen_ai.response.finish_reasons'] = reasons;
  return attributes;
}

/** The usage of an answered call as the conventions count it, with the caller's cost (`gateway.cost_usd`). */
export function usageAttributes(call: SettledCall): Attributes {
  const { usage, model } = call;
  if (!usage || !model) return {};
  const attributes: Attributes = {
    'gen_ai.usage.input_tokens': usage.promptTokens,
    'gen_ai.usage.output_tokens': usage.completionTokens,
    'gateway.cost_usd': costOf(model, usage).charged / 1e9,
  };
  if (usage.cachedTokens !== undefined) attributes['gen_ai.usage.cache_read.input_tokens'] = usage.cachedTokens;
  if (usage.cacheWriteTokens !== undefined) attributes['gen_ai.usage.cache_creation.input_tokens'] = usage.cacheWriteTokens;
  if (usage.reasoningTokens !== undefined) attributes['gen_ai.usage.reasoning.output_tokens'] = usage.reasoningTokens;
  return attributes;
}

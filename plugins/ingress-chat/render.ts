import type { JsonObject } from '../../src/plugin-api.js';
import type { Reply, ReplyChoice, ReplyEnvelope, ReasoningState, SealState } from '../../src/toolkit/neutral.js';
import { referenceUsage } from '../../src/toolkit/reference-format.js';

/**
 * The neutral reply rendered into the reference format: a chat
 * completion, or a legacy text completion for `/v1/completions`.
 */

/**
 * A reasoning run's state as a `thinking_blocks` entry the caller hands back unchanged
 * (docs/formats/chat.md#reasoning): the thinking text with the state sealed by the gateway
 * (`seal`) as its signature, or a redacted block whose data is the seal.
 */
export function thinkingBlock(text: string, state: ReasoningState, seal: SealState): JsonObject {
  const envelope = seal(state);
  return state.kind === 'redacted' ? { type: 'redacted_thinking', data: envelope } : { type: 'thinking', thinking: text, signature: envelope };
}

function message(choice: ReplyChoice, seal: SealState): JsonObject {
  const out: JsonObject = { role: 'assistant', content: choice.content, refusal: choice.refusal };
  const runs = choice.reasoning ?? [];
  const reasoning = runs.map((run) => run.text).join('');
  if (reasoning !== '') out['reasoning_content'] = reasoning;
  const blocks = runs.flatMap((run) => (run.state ? [thinkingBlock(run.text, run.state, seal)] : []));
  if (blocks.length) out['thinking_blocks'] = blocks;
  if (choice.toolCalls.length) {
    out['tool_calls'] = choice.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.arguments } }));
  }
  return out;
}

export function chatCompletionBody(reply: Reply, envelope: ReplyEnvelope, seal: SealState): JsonObject {
  return {
    id: envelope.id,
    object: 'chat.completion',
    created: envelope.created,
    model: envelope.model,
    choices: reply.choices.map((choice, index) => ({ index, message: message(choice, seal), logprobs: choice.logprobs ?? null, finish_reason: choice.finish })),
    usage: referenceUsage(reply.usage),
  };
}

/** A legacy completion has only text: a reply that called tools cannot be one, and a refusal is written as its text. */
export function textCompletionBody(reply: Reply, envelope: ReplyEnvelope): JsonObject {
  return {
    id: envelope.id,
    object: 'text_completion',
    created: envelope.created,
    model: envelope.model,
    choices: reply.choices.map((choice, index) => ({
      text: (choice.content ?? '') + (choice.refusal ?? ''),
      index,
      logprobs: null,
      finish_reason: choice.finish,
    })),
    usage: referenceUsage(reply.usage),
  };
}

import type { JsonObject, ModelEntry } from '../../src/plugin-api.js';
import { isObject } from '../../src/toolkit/json.js';
import type { ReasoningEffort } from '../../src/toolkit/neutral.js';
import { reasoningPlan } from '../../src/toolkit/vendor.js';

/**
 * Reasoning in a chat body sent to gamma as it came (docs/reasoning.md#gamma): `reasoning_effort`
 * passes through unchanged — but asking a model the catalogue says does not reason is a 400, as
 * for every family — and the reasoning an assistant message hands back (`thinking_blocks`,
 * `reasoning_content`: other vendors' states, which gamma cannot verify or take) is left out.
 */

/** Refuses `reasoning_effort` for a model that does not reason (the same rule every family applies). */
export function checkReasoningEffort(body: JsonObject, model: ModelEntry): void {
  const effort = body['reasoning_effort'];
  if (typeof effort === 'string') reasoningPlan({ kind: 'effort', effort: effort as ReasoningEffort, param: 'reasoning_effort' }, model, model.maxOutputTokens);
}

const handsBackReasoning = (message: unknown): boolean => isObject(message) && ('thinking_blocks' in message || 'reasoning_content' in message);

/** The messages without the reasoning assistant messages hand back, or null when none does. */
export function messagesWithoutReasoning(messages: unknown): unknown[] | null {
  if (!Array.isArray(messages) || !messages.some(handsBackReasoning)) return null;
  return messages.map((message: unknown) => {
    if (!handsBackReasoning(message)) return message;
    const { thinking_blocks: _blocks, reasoning_content: _text, ...rest } = message as JsonObject;
    return rest;
  });
}

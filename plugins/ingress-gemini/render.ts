import type { JsonObject } from '../../src/plugin-api.js';
import { parseUpstreamJson } from '../../src/toolkit/json.js';
import type { FinishReason, ReasoningState, Reply, ReplyReasoning, ReplyToolCall, SealState } from '../../src/toolkit/neutral.js';
import { finishReason, usageMetadata } from './wire.js';

/** A neutral reply → a `GenerateContentResponse` (docs/formats/gemini.md#reply). */

/** What every reply and chunk of one call shares. */
export interface GeminiEnvelope {
  responseId: string;
  /** The canonical model id. */
  modelVersion: string;
  /** Whether thought parts are written (`thinkingConfig.includeThoughts`). */
  thoughts: boolean;
  /** The answering model's family, named in a 502 for its tool-call arguments. */
  family: string;
  /** A reasoning state as a `thoughtSignature`: sealed by the gateway, beta's own signatures too. */
  seal: SealState;
}

/**
 * A tool call as a `functionCall` part. Arguments cut short at the output limit stand as `{}`
 * (the vendor did the work); any other arguments that are not a JSON object are the vendor's fault.
 */
export function functionCallPart(call: ReplyToolCall, finish: FinishReason, family: string): JsonObject {
  let args: JsonObject = {};
  try {
    if (call.arguments.trim() !== '') args = parseUpstreamJson(call.arguments, family, "a tool call's arguments string");
  } catch (error) {
    if (finish !== 'length') throw error;
  }
  return { functionCall: { id: call.id, name: call.name, args } };
}

/**
 * Whether a state is a signature over its run's thinking text (alpha's), which holds only with
 * that text: such a run is written as a thought part even when thoughts were not asked for, or
 * it could not be handed back.
 */
export const signsItsText = (state: ReasoningState | null): boolean => state?.kind === 'signature';

/** Thought parts of the reasoning runs that have text (when shown, or bound to their signature); a run's state rides on its part, except the lead's. */
export function thoughtParts(runs: readonly ReplyReasoning[], envelope: GeminiEnvelope, lead: ReasoningState | null): JsonObject[] {
  return runs.flatMap((run) => {
    if (run.text === '' || !(envelope.thoughts || signsItsText(run.state))) return [];
    const part: JsonObject = { text: run.text, thought: true };
    if (run.state && run.state !== lead) part['thoughtSignature'] = envelope.seal(run.state);
    return [part];
  });
}

/**
 * The turn's lead signature where Gemini puts it (and Gemini CLI hands it back): on the first
 * function call, else on the last part, else on an empty text part of its own.
 */
export function placeSignature(parts: JsonObject[], lead: ReasoningState | null, envelope: GeminiEnvelope): void {
  if (!lead) return;
  const signature = envelope.seal(lead);
  const target = parts.find((part) => part['functionCall'] !== undefined) ?? parts.at(-1);
  if (target) target['thoughtSignature'] = signature;
  else parts.push({ text: '', thoughtSignature: signature });
}

export function geminiReply(reply: Reply, envelope: GeminiEnvelope): JsonObject {
  const choice = reply.choices[0];
  const runs = choice?.reasoning ?? [];
  const lead = runs.find((run) => run.state)?.state ?? null;
  const finish = choice?.finish ?? 'stop';
  const parts = thoughtParts(runs, envelope, lead);
  if (choice?.content) parts.push({ text: choice.content });
  // The format has no refusal part: the refusal is text, and the finish reason says SAFETY.
  if (choice?.refusal) parts.push({ text: choice.refusal });
  for (const call of choice?.toolCalls ?? []) parts.push(functionCallPart(call, finish, envelope.family));
  placeSignature(parts, lead, envelope);
  return {
    candidates: [{ content: { role: 'model', parts }, finishReason: choice?.refusal ? 'SAFETY' : finishReason(finish), index: 0 }],
    usageMetadata: usageMetadata(reply.usage),
    modelVersion: envelope.modelVersion,
    responseId: envelope.responseId,
  };
}

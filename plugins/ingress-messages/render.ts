import type { JsonObject } from '../../src/plugin-api.js';
import { parseUpstreamJson } from '../../src/toolkit/json.js';
import type { FinishReason, Reply, ReplyReasoning, SealState } from '../../src/toolkit/neutral.js';
import { isRedacted, messagesUsage, stopReason } from './wire.js';

/** A neutral reply → a Messages `message` (docs/formats/messages.md#reply). */

/** What every reply and event of one call shares: a minted `msg_…` id and the canonical model. */
export interface MessageEnvelope {
  id: string;
  model: string;
  /** A reasoning state as a `signature` (or a redacted block's `data`): sealed by the gateway, alpha's own too. */
  seal: SealState;
}

/** A reasoning run as a block: alpha's redacted thinking, else thinking text with its signature; each state sealed. */
export function reasoningBlock(run: ReplyReasoning, envelope: MessageEnvelope): JsonObject {
  if (isRedacted(run.state)) return { type: 'redacted_thinking', data: envelope.seal(run.state) };
  return { type: 'thinking', thinking: run.text, signature: run.state ? envelope.seal(run.state) : '' };
}

/**
 * A tool call's arguments (a JSON string) as the `input` object a tool_use block needs. A reply
 * cut at max_tokens may end inside a call's arguments: the vendor did the work, so the call
 * stands with an empty input (its partial arguments only a stream can carry). Any other
 * arguments that are not a JSON object are the vendor's fault: the 502 of an upstream body that
 * is not its format.
 */
export function toolInput(args: string, finish: FinishReason, family: string): JsonObject {
  if (args.trim() === '') return {};
  try {
    return parseUpstreamJson(args, family, "a tool call's arguments string");
  } catch (error) {
    if (finish === 'length') return {};
    throw error;
  }
}

/** `family`: the answering model's, named in a 502 for its tool-call arguments. */
export function messageBody(reply: Reply, envelope: MessageEnvelope, family: string): JsonObject {
  const choice = reply.choices[0];
  const content: JsonObject[] = [];
  for (const run of choice?.reasoning ?? []) content.push(reasoningBlock(run, envelope));
  if (choice?.content) content.push({ type: 'text', text: choice.content });
  // The Messages format has no refusal block: the refusal is a text block of its own, and the stop reason says so.
  if (choice?.refusal) content.push({ type: 'text', text: choice.refusal });
  const finish = choice?.finish ?? 'stop';
  for (const call of choice?.toolCalls ?? [])
    content.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call.arguments, finish, family) });
  return {
    id: envelope.id,
    type: 'message',
    role: 'assistant',
    model: envelope.model,
    content,
    stop_reason: stopReason(finish, (choice?.toolCalls.length ?? 0) > 0, Boolean(choice?.refusal)),
    stop_sequence: null,
    usage: messagesUsage(reply.usage),
  };
}

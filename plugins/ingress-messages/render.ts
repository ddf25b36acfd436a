import { GatewayError, type JsonObject, type Reply, type ReplyReasoning } from '../../src/plugin-api.js';
import { isRedacted, messagesUsage, signatureOf, stopReason } from './wire.js';

/** A neutral reply → a Messages `message` (docs/formats/messages.md#reply). */

/** What every reply and event of one call shares: a minted `msg_…` id and the canonical model. */
export interface MessageEnvelope {
  id: string;
  model: string;
}

/** A reasoning run as a block: alpha's redacted thinking as it was, else thinking text with its signature. */
export function reasoningBlock(run: ReplyReasoning): JsonObject {
  if (isRedacted(run.state)) return { type: 'redacted_thinking', data: run.state.data };
  return { type: 'thinking', thinking: run.text, signature: run.state ? signatureOf(run.state) : '' };
}

/** A tool call's arguments (a JSON string) as the `input` object a tool_use block needs; anything else is the vendor's fault. */
export function toolInput(args: string): JsonObject {
  if (args.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as JsonObject;
  } catch {
    // falls through to the 502
  }
  throw new GatewayError(502, 'The upstream returned tool-call arguments that are not a JSON object.');
}

export function messageBody(reply: Reply, envelope: MessageEnvelope): JsonObject {
  const choice = reply.choices[0];
  const content: JsonObject[] = [];
  for (const run of choice?.reasoning ?? []) content.push(reasoningBlock(run));
  if (choice?.content) content.push({ type: 'text', text: choice.content });
  for (const call of choice?.toolCalls ?? []) content.push({ type: 'tool_use', id: call.id, name: call.name, input: toolInput(call.arguments) });
  return {
    id: envelope.id,
    type: 'message',
    role: 'assistant',
    model: envelope.model,
    content,
    stop_reason: stopReason(choice?.finish ?? 'stop', (choice?.toolCalls.length ?? 0) > 0),
    stop_sequence: null,
    usage: messagesUsage(reply.usage),
  };
}

import type { Attributes } from '@opentelemetry/api';
import type { Call } from '../../src/plugin-api.js';
import type { NeutralRequest, Part } from '../../src/toolkit/neutral.js';

/**
 * The message content of a call as the GenAI conventions carry it on the inference span, only
 * when the operator opted in (`OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`):
 * `gen_ai.system_instructions`, `gen_ai.input.messages` and `gen_ai.output.messages`, each a JSON
 * string of the conventions' schema (messages of `role` and `parts`), at most
 * CONTENT_LIMIT_BYTES of UTF-8. Only text goes: the request's and the reply's words and tool
 * results; never a header, a key or a credential (none is in a call's neutral request or reply).
 */

/** The bound of each content attribute, in UTF-8 bytes; text beyond it is cut and ends with `…`. */
export const CONTENT_LIMIT_BYTES = 16 * 1024;
/** The output text a call keeps for its span at most (characters, all choices together): no more than the attribute can hold. */
export const OUTPUT_TEXT_LIMIT_CHARS = CONTENT_LIMIT_BYTES;

const CUT = '…';

interface TextPart {
  type: 'text';
  content: string;
}
interface ToolResponsePart {
  type: 'tool_call_response';
  id: string;
  response: string;
}
type MessagePart = TextPart | ToolResponsePart;
interface Message {
  role: string;
  parts: MessagePart[];
  finish_reason?: string;
}

/** The variable the OpenTelemetry GenAI instrumentations are opted in with. */
export const captureContent = (env: Record<string, string | undefined>): boolean =>
  env['OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT']?.trim().toLowerCase() === 'true';

function partOf(part: Part): MessagePart | null {
  if (part.type === 'text') return { type: 'text', content: part.text };
  if (part.type === 'tool_result') return { type: 'tool_call_response', id: part.id, response: part.content };
  // Reasoning the caller handed back is the model's own state, not the conversation's words.
  return null;
}

/** The content attributes of an answered call: what it asked (its neutral request) and what the caller got. */
export function contentAttributes(call: Call): Attributes {
  const attributes: Attributes = {};
  let request: NeutralRequest | null = null;
  try {
    request = call.requestForReport();
  } catch {
    // A body no format reads into the neutral request (one only a passthrough takes): its input goes unexported.
  }
  if (request) {
    if (request.system.length) {
      const system = fitted([{ role: 'system', parts: request.system.map((content): MessagePart => ({ type: 'text', content })) }]);
      // The conventions' system instructions are a list of parts, not a message.
      if (system?.[0]) attributes['gen_ai.system_instructions'] = JSON.stringify(system[0].parts);
    }
    const turns = request.turns.map((turn) => ({ role: turn.role, parts: turn.parts.map(partOf).filter((part): part is MessagePart => part !== null) }));
    const input = fitted(turns);
    if (input) attributes['gen_ai.input.messages'] = JSON.stringify(input);
  }
  const notes = call.answerNotes;
  if (notes?.texts) {
    const output: Message[] = [];
    const choices = Math.max(notes.texts.length, notes.finishReasons.length);
    for (let index = 0; index < choices; index++) {
      const text = notes.texts[index] ?? '';
      const message: Message = {
        role: 'assistant',
        parts: text === '' ? [] : [{ type: 'text', content: text }],
      };
      const reason = notes.finishReasons[index];
      if (reason !== undefined) message.finish_reason = reason;
      output.push(message);
    }
    const fit = fitted(output);
    if (fit) attributes['gen_ai.output.messages'] = JSON.stringify(fit);
  }
  return attributes;
}

const bytes = (text: string): number => Buffer.byteLength(text);
/** A text's bytes inside a JSON string (escapes included, quotes not). */
const jsonBytes = (text: string): number => bytes(JSON.stringify(text)) - 2;
const textOf = (part: MessagePart): string => (part.type === 'text' ? part.content : part.response);
function withText(part: MessagePart, text: string): void {
  if (part.type === 'text') part.content = text;
  else part.response = text;
}

/** `text` cut to at most `budget` bytes of JSON, ending with `…` when cut. */
function cutTo(text: string, budget: number): string {
  const room = budget - bytes(CUT);
  if (room <= 0) return '';
  let length = Math.min(text.length, room);
  // Each round shrinks the slice in proportion to its excess: a few rounds at most.
  for (let size = jsonBytes(text.slice(0, length)); size > room && length > 0; size = jsonBytes(text.slice(0, length))) {
    length = Math.max(0, Math.floor((length * room) / size) - 1);
  }
  return text.slice(0, length) + CUT;
}

/**
 * `messages` fitted to CONTENT_LIMIT_BYTES of JSON: the oldest messages left out while their
 * structure alone is more than the bound, then the parts' text given the room left from the
 * last part back (the latest words matter most), a part that does not fit cut with `…`. Null
 * when not even the last message's structure fits. The parts are changed in place.
 */
function fitted(messages: Message[]): Message[] | null {
  // A text longer than the bound is cut whatever else there is: measured no further than that.
  const texts = messages.map((message) => message.parts.map((part) => textOf(part).slice(0, CONTENT_LIMIT_BYTES + 1)));
  for (const message of messages) for (const part of message.parts) withText(part, '');
  const skeletons = messages.map((message) => bytes(JSON.stringify(message)) + 1);
  let structure = skeletons.reduce((sum, size) => sum + size, 1);
  let first = 0;
  while (structure > CONTENT_LIMIT_BYTES && first < messages.length) structure -= skeletons[first++] as number;
  if (first === messages.length && messages.length > 0) return null;
  let room = CONTENT_LIMIT_BYTES - structure;
  for (let index = messages.length - 1; index >= first; index--) {
    const parts = (messages[index] as Message).parts;
    for (let at = parts.length - 1; at >= 0; at--) {
      const text = (texts[index] as string[])[at] as string;
      const size = jsonBytes(text);
      const kept = size <= room ? text : cutTo(text, room);
      room -= size <= room ? size : jsonBytes(kept);
      withText(parts[at] as MessagePart, kept);
    }
  }
  return messages.slice(first);
}

import { CONTENT_CHUNKS, TOOL_CALL, type CheckKind } from '../lib/workload.js';

/**
 * Is this answer (a 200's body) the right one? Every response of a measurement is checked;
 * a wrong one counts as an error, so a fast but broken target cannot win.
 */

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count += 1;
  return count;
}

function json(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return null;
  }
}

/** The value at `path` in parsed JSON, or undefined where the path leaves it. */
function at(value: unknown, ...path: Array<string | number>): unknown {
  let here = value;
  for (const step of path) {
    if (typeof here !== 'object' || here === null) return undefined;
    here = (here as Record<string | number, unknown>)[step];
  }
  return here;
}

const isText = (value: unknown): boolean => typeof value === 'string' && value.length > 0;

/** The tool-call argument deltas of a chat stream, in the order they came (the call's head, with none, left out). */
export function argumentDeltas(body: string): string[] {
  const deltas: string[] = [];
  for (const line of body.split('\n')) {
    if (!line.startsWith('data: {')) continue;
    const part = at(json(line.slice(6)), 'choices', 0, 'delta', 'tool_calls', 0, 'function', 'arguments');
    if (isText(part)) deltas.push(part as string);
  }
  return deltas;
}

/** The deltas the simulator sends for TOOL_CALL: its arguments in two halves. */
const half = Math.ceil(TOOL_CALL.arguments.length / 2);
const TOOL_DELTAS = [TOOL_CALL.arguments.slice(0, half), TOOL_CALL.arguments.slice(half)];

const CHECKS: Record<CheckKind, (body: string) => boolean> = {
  // A chat completion that finished, with text.
  'reference-json': (body) => {
    const choice = at(json(body), 'choices', 0);
    return at(choice, 'finish_reason') === 'stop' && isText(at(choice, 'message', 'content'));
  },
  // Every content chunk, then `data: [DONE]` last.
  'reference-sse': (body) => body.endsWith('data: [DONE]\n\n') && occurrences(body, '"delta":{"content":') === CONTENT_CHUNKS,
  'alpha-json': (body) => {
    const message = json(body);
    return at(message, 'type') === 'message' && at(message, 'stop_reason') === 'end_turn' && typeof at(message, 'content', 0, 'text') === 'string';
  },
  // A completed response whose message has text.
  'responses-json': (body) => {
    const response = json(body);
    const output = at(response, 'output');
    const message: unknown = Array.isArray(output) ? output.find((item: unknown) => at(item, 'type') === 'message') : undefined;
    return at(response, 'status') === 'completed' && isText(at(message, 'content', 0, 'text'));
  },
  // Every text delta, then response.completed last.
  'responses-sse': (body) =>
    /event: response\.completed\ndata: [^\n]*\n\n$/.test(body) && occurrences(body, '"type":"response.output_text.delta"') === CONTENT_CHUNKS,
  // A refusal of the key in the chat format's error envelope (the bench's bare 401 server answers the same).
  'reference-401': (body) => {
    const error = at(json(body), 'error');
    return at(error, 'code') === 'invalid_api_key' && isText(at(error, 'message'));
  },
  // Every argument delta of the call relayed, each whole and in order, then `data: [DONE]` last.
  'reference-tool-sse': (body) =>
    body.endsWith('data: [DONE]\n\n') && body.includes('"finish_reason":"tool_calls"') && argumentDeltas(body).join('\u0000') === TOOL_DELTAS.join('\u0000'),
  'alpha-sse': (body) => body.endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n') && occurrences(body, '"type":"text_delta"') === CONTENT_CHUNKS,
};

export const checkBody = (kind: CheckKind, body: string): boolean => CHECKS[kind](body);

/**
 * What a stream's first token looks like on the wire, per check (the text each content frame
 * has, the one the checks above count): time to first token is the time to the first byte of
 * it, not to the stream's head or its role frame. Null for answers that are not streams of text.
 */
export const FIRST_TOKEN_MARK: Record<CheckKind, string | null> = {
  'reference-json': null,
  'reference-sse': '"delta":{"content":',
  'alpha-json': null,
  'alpha-sse': '"type":"text_delta"',
  'responses-json': null,
  'responses-sse': '"type":"response.output_text.delta"',
  'reference-401': null,
  'reference-tool-sse': null,
};

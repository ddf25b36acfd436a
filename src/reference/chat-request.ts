import type { JsonObject } from '../chain/call.js';
import { invalidRequest } from '../http/errors.js';
import type { ImageSource, NeutralRequest, Part, ResponseFormat, ToolChoice, ToolSpec, Turn } from '../neutral/request.js';

/**
 * A reference-format chat request read into the neutral request (src/neutral/request.ts), with the message-sequence
 * rules every non-reference vendor needs already applied (docs/vendor-formats.md#message-sequence-normalisation): system and developer messages pulled out (hoisted, in order, wherever they
 * stood), empty text dropped, consecutive same-role turns merged (tool results count as the
 * user's and go first in their turn), every tool result named after the call it answers, and
 * every call answered in the very next turn. Anything a vendor could not take is a 400 naming
 * the field, e.g. `messages[2].tool_calls[0].function.arguments`.
 */

const isObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);
const numberOrNull = (value: unknown): number | null => (typeof value === 'number' ? value : null);

const DATA_URL = /^data:([a-z]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=\s]*)$/i;

function imageSource(url: unknown, param: string): ImageSource {
  if (typeof url !== 'string' || url === '') throw invalidRequest(`${param}.image_url.url must be a data URL or an http(s) URL.`, param);
  const data = DATA_URL.exec(url);
  if (data) {
    const mediaType = (data[1] as string).toLowerCase();
    if (!mediaType.startsWith('image/')) throw invalidRequest(`${param} is a data URL of ${mediaType}, not an image.`, param);
    return { kind: 'data', mediaType, data: (data[2] as string).replace(/\s/g, '') };
  }
  if (url.startsWith('data:')) throw invalidRequest(`${param} must be a base64 data URL (data:<mime>;base64,<payload>).`, param);
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidRequest(`${param}.image_url.url is not a valid URL.`, param);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') throw invalidRequest(`${param} must be an https URL or a data URL.`, param);
  return { kind: 'url', url };
}

/** Text of a system, developer or tool message: a string or text parts. */
function plainText(content: unknown, param: string): string {
  if (typeof content === 'string') return content;
  if (content === null || content === undefined) return '';
  if (!Array.isArray(content)) throw invalidRequest(`${param} must be a string or an array of text parts.`, param);
  return content
    .map((part, j) => {
      if (!isObject(part) || part['type'] !== 'text' || typeof part['text'] !== 'string') {
        throw invalidRequest(`${param}[${j}] must be a text part.`, `${param}[${j}]`);
      }
      return part['text'];
    })
    .join('\n');
}

function contentParts(content: unknown, param: string, allowImages: boolean): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) throw invalidRequest(`${param} must be a string or an array of parts.`, param);
  const parts: Part[] = [];
  content.forEach((part, j) => {
    const where = `${param}[${j}]`;
    if (!isObject(part)) throw invalidRequest(`${where} must be an object.`, where);
    const type = part['type'];
    if ((type === 'text' || type === 'refusal') && typeof part[type] === 'string') {
      if (part[type] !== '') parts.push({ type: 'text', text: part[type] as string });
    } else if (type === 'image_url' && allowImages) {
      const image = part['image_url'];
      parts.push({ type: 'image', source: imageSource(isObject(image) ? image['url'] : undefined, where), param: where });
    } else {
      throw invalidRequest(`${where}: content parts of type '${String(type)}' are not supported here.`, where);
    }
  });
  return parts;
}

function toolArguments(raw: unknown, param: string): JsonObject {
  if (raw === undefined || raw === null || raw === '') return {};
  if (typeof raw !== 'string') throw invalidRequest(`${param} must be a JSON string.`, param);
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    throw invalidRequest(`${param} is not valid JSON.`, param);
  }
  if (!isObject(value)) throw invalidRequest(`${param} must encode a JSON object.`, param);
  return value;
}

interface Reading {
  system: string[];
  turns: Turn[];
  /** Tool-call id → function name, from the assistant turns read so far. */
  callNames: Map<string, string>;
}

function push(reading: Reading, role: Turn['role'], parts: Part[]): void {
  if (!parts.length) return;
  const last = reading.turns.at(-1);
  if (last && last.role === role) last.parts.push(...parts);
  else reading.turns.push({ role, parts: [...parts] });
}

function readMessage(reading: Reading, message: unknown, i: number): void {
  const param = `messages[${i}]`;
  if (!isObject(message)) throw invalidRequest(`${param} must be an object.`, param);
  const content = message['content'];
  switch (message['role']) {
    case 'system':
    case 'developer': {
      const text = plainText(content, `${param}.content`);
      if (text !== '') reading.system.push(text);
      return;
    }
    case 'user':
      push(reading, 'user', contentParts(content, `${param}.content`, true));
      return;
    case 'assistant': {
      const parts = contentParts(content, `${param}.content`, false);
      const calls = message['tool_calls'];
      if (Array.isArray(calls)) {
        calls.forEach((call, j) => {
          const where = `${param}.tool_calls[${j}]`;
          const fn = isObject(call) ? call['function'] : undefined;
          if (!isObject(call) || typeof call['id'] !== 'string' || !isObject(fn) || typeof fn['name'] !== 'string') {
            throw invalidRequest(`${where} needs an id and a function name.`, where);
          }
          reading.callNames.set(call['id'], fn['name']);
          parts.push({ type: 'tool_call', id: call['id'], name: fn['name'], args: toolArguments(fn['arguments'], `${where}.function.arguments`) });
        });
      }
      push(reading, 'assistant', parts);
      return;
    }
    case 'tool': {
      const id = message['tool_call_id'];
      const name = typeof id === 'string' ? reading.callNames.get(id) : undefined;
      if (typeof id !== 'string' || name === undefined) {
        throw invalidRequest(`${param}.tool_call_id does not name a tool call of an earlier assistant message.`, `${param}.tool_call_id`);
      }
      push(reading, 'user', [{ type: 'tool_result', id, name, content: plainText(content, `${param}.content`) }]);
      return;
    }
    default:
      throw invalidRequest(`${param}.role '${String(message['role'])}' is not supported; use system, developer, user, assistant or tool.`, `${param}.role`);
  }
}

/** Every call answered in the very next turn, every result answering a call of the turn before; results first. */
function settleToolPairs(turns: Turn[]): void {
  turns.forEach((turn, t) => {
    if (turn.role === 'user') {
      turn.parts.sort((a, b) => Number(b.type === 'tool_result') - Number(a.type === 'tool_result'));
      const previous = turns[t - 1];
      for (const part of turn.parts) {
        if (part.type !== 'tool_result') continue;
        const answered = previous?.parts.some((p) => p.type === 'tool_call' && p.id === part.id);
        if (!answered) throw invalidRequest(`The tool message answering '${part.id}' must follow the assistant message that made that call.`, 'messages');
      }
      return;
    }
    const results = new Set(turns[t + 1]?.parts.flatMap((p) => (p.type === 'tool_result' ? [p.id] : [])) ?? []);
    for (const part of turn.parts) {
      if (part.type === 'tool_call' && !results.has(part.id)) {
        throw invalidRequest(`The tool call '${part.id}' has no tool message answering it right after its assistant message.`, 'messages');
      }
    }
  });
}

function readTools(raw: unknown): ToolSpec[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((tool) => {
    const fn = (tool as JsonObject)['function'] as JsonObject;
    const spec: ToolSpec = { name: fn['name'] as string };
    if (typeof fn['description'] === 'string') spec.description = fn['description'];
    if (isObject(fn['parameters'])) spec.parameters = fn['parameters'];
    return spec;
  });
}

function readToolChoice(raw: unknown, tools: ToolSpec[]): ToolChoice | null {
  if (raw === undefined || raw === null) return null;
  if (raw === 'auto' || raw === 'none' || raw === 'required') return raw;
  const name = ((raw as JsonObject)['function'] as JsonObject)['name'] as string;
  if (!tools.some((tool) => tool.name === name)) throw invalidRequest(`tool_choice names '${name}', which is not in tools.`, 'tool_choice');
  return { name };
}

function readResponseFormat(raw: unknown): ResponseFormat | null {
  if (!isObject(raw) || raw['type'] === 'text') return null;
  if (raw['type'] === 'json_object') return { type: 'json_object' };
  const spec = raw['json_schema'];
  if (!isObject(spec) || typeof spec['name'] !== 'string') throw invalidRequest('response_format.json_schema needs a name.', 'response_format.json_schema');
  const schema = spec['schema'] ?? { type: 'object' };
  if (!isObject(schema) || (schema['type'] !== undefined && schema['type'] !== 'object')) {
    throw invalidRequest('response_format.json_schema.schema must describe a JSON object at its root.', 'response_format.json_schema.schema');
  }
  return { type: 'json_schema', name: spec['name'], schema };
}

function readStop(raw: unknown): string[] {
  if (typeof raw === 'string') return [raw];
  return Array.isArray(raw) ? (raw as string[]) : [];
}

/** Reads a chat request body that passed the reference schema (src/reference/request-schemas.ts). */
export function parseChatRequest(body: JsonObject): NeutralRequest {
  const reading: Reading = { system: [], turns: [], callNames: new Map() };
  const messages = body['messages'];
  if (!Array.isArray(messages)) throw invalidRequest('messages is required.', 'messages');
  messages.forEach((message, i) => readMessage(reading, message, i));
  if (!reading.turns.length) throw invalidRequest('messages must contain at least one user or assistant message with content.', 'messages');
  settleToolPairs(reading.turns);
  const tools = readTools(body['tools']);
  const topLogprobs = numberOrNull(body['top_logprobs']);
  return {
    system: reading.system,
    turns: reading.turns,
    maxTokens: numberOrNull(body['max_completion_tokens']) ?? numberOrNull(body['max_tokens']),
    temperature: numberOrNull(body['temperature']),
    topP: numberOrNull(body['top_p']),
    stop: readStop(body['stop']),
    n: numberOrNull(body['n']) ?? 1,
    seed: numberOrNull(body['seed']),
    user: typeof body['user'] === 'string' ? body['user'] : null,
    presencePenalty: numberOrNull(body['presence_penalty']),
    frequencyPenalty: numberOrNull(body['frequency_penalty']),
    logprobs: body['logprobs'] === true,
    topLogprobs,
    tools,
    toolChoice: readToolChoice(body['tool_choice'], tools),
    parallelToolCalls: body['parallel_tool_calls'] !== false,
    responseFormat: readResponseFormat(body['response_format']),
    topK: null,
    reasoning: null,
  };
}

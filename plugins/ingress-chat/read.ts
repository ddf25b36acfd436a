import { invalidRequest, type JsonObject } from '../../src/plugin-api.js';
import {
  automaticCache,
  cacheBreakpoint,
  messageBreakpoint,
  imageSource,
  namedToolChoice,
  objectSchema,
  toolArguments,
  TurnSequence,
  type SequenceWords,
} from '../../src/toolkit/ingress.js';
import { isObject } from '../../src/toolkit/json.js';
import {
  noOpener,
  verifiedState,
  type CacheBreakpoint,
  type NeutralRequest,
  type OpenState,
  type Part,
  type ReasoningEffort,
  type ReasoningRequest,
  type ResponseFormat,
  type ToolChoice,
  type ToolSpec,
} from '../../src/toolkit/neutral.js';
import { refuseUnknownMembers } from './members.js';
import { refuseApproximation, refuseUntranslatable, type Adjust } from './params.js';

/**
 * A reference-format chat request read into the neutral request (src/toolkit/neutral.ts), with the message-sequence
 * rules every non-reference vendor needs already applied (the ingress toolkit's TurnSequence,
 * docs/vendor-formats.md#message-sequence-normalisation). Anything a vendor could not take is a
 * 400 naming the field, e.g. `messages[2].tool_calls[0].function.arguments`, and so is a
 * parameter the neutral request does not carry (params.ts). Only translated families read
 * a chat body this way: gamma is sent the caller's body.
 */

const WORDS: SequenceWords = { param: 'messages', result: 'tool message', call: 'assistant message' };

const numberOrNull = (value: unknown): number | null => (typeof value === 'number' ? value : null);

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

/** The breakpoint of a system, developer or tool message: `cache_control` on any of its parts (as Anthropic's and LiteLLM's OpenAI-compatible layers take it). */
const messageCache = (content: unknown, param: string): CacheBreakpoint | undefined => messageBreakpoint(content, 'cache_control', (j) => `${param}[${j}]`);

/** A part with the cache breakpoint its `cache_control` sets, if any. */
function withCache(part: Part, raw: JsonObject, where: string): Part {
  const cache = cacheBreakpoint(raw, 'cache_control', where);
  return cache ? { ...part, cache } : part;
}

function contentParts(content: unknown, param: string, allowImages: boolean, adjust: Adjust): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (content === null || content === undefined) return [];
  if (!Array.isArray(content)) throw invalidRequest(`${param} must be a string or an array of parts.`, param);
  const parts: Part[] = [];
  content.forEach((part, j) => {
    const where = `${param}[${j}]`;
    if (!isObject(part)) throw invalidRequest(`${where} must be an object.`, where);
    const type = part['type'];
    if ((type === 'text' || type === 'refusal') && typeof part[type] === 'string') {
      if (part[type] !== '') parts.push(withCache({ type: 'text', text: part[type] }, part, where));
    } else if (type === 'image_url' && allowImages) {
      const image = part['image_url'];
      const detail = isObject(image) ? image['detail'] : undefined;
      if (detail !== undefined && detail !== null && detail !== 'auto') {
        adjust(`${where}.image_url.detail`, 'sent:auto', `${where}.image_url.detail: no image detail other than auto is mapped for this model.`);
      }
      parts.push(
        withCache(
          { type: 'image', source: imageSource(isObject(image) ? image['url'] : undefined, where, `${where}.image_url.url`), param: where },
          part,
          where,
        ),
      );
    } else {
      throw invalidRequest(`${where}: content parts of type '${String(type)}' are not supported here.`, where);
    }
  });
  return parts;
}

/**
 * The reasoning an assistant message hands back (docs/formats/chat.md#reasoning): its
 * `thinking_blocks`, each state sealed by the gateway (a block with any other signature carries
 * nothing a vendor could verify, and one whose seal does not open is announced: both are
 * dropped); without them, `reasoning_content` alone.
 */
function reasoningParts(message: JsonObject, open: OpenState): Part[] {
  const blocks = message['thinking_blocks'];
  if (Array.isArray(blocks) && blocks.length) {
    return (blocks as JsonObject[]).flatMap((block): Part[] => {
      const member = block['type'] === 'redacted_thinking' ? 'data' : 'signature';
      const envelope = block[member];
      const state = typeof envelope === 'string' ? verifiedState(open(envelope, `thinking_blocks.${member}`)) : null;
      return state ? [{ type: 'reasoning', text: typeof block['thinking'] === 'string' ? block['thinking'] : '', state }] : [];
    });
  }
  const text = message['reasoning_content'];
  return typeof text === 'string' && text !== '' ? [{ type: 'reasoning', text, state: null }] : [];
}

function readMessage(reading: TurnSequence, message: unknown, i: number, adjust: Adjust, open: OpenState): void {
  const param = `messages[${i}]`;
  if (!isObject(message)) throw invalidRequest(`${param} must be an object.`, param);
  const content = message['content'];
  // The vendors' requests name no participant: the message goes without it (a tool message's name is the call's, sent as such).
  if (typeof message['name'] === 'string' && message['role'] !== 'tool') {
    adjust(`${param}.name`, 'omitted', `${param}.name: the request of this model's vendor has no place for a participant's name.`);
  }
  switch (message['role']) {
    case 'system':
    case 'developer': {
      reading.addSystem(plainText(content, `${param}.content`), messageCache(content, `${param}.content`));
      return;
    }
    case 'user':
      reading.add('user', contentParts(content, `${param}.content`, true, adjust));
      return;
    case 'assistant': {
      const parts = [...reasoningParts(message, open), ...contentParts(content, `${param}.content`, false, adjust)];
      // An earlier refusal is the turn's text to the vendor, as a refusal part is.
      if (typeof message['refusal'] === 'string' && message['refusal'] !== '') parts.push({ type: 'text', text: message['refusal'] });
      const calls = message['tool_calls'];
      if (Array.isArray(calls)) {
        calls.forEach((call, j) => {
          const where = `${param}.tool_calls[${j}]`;
          const fn = isObject(call) ? call['function'] : undefined;
          if (!isObject(call) || typeof call['id'] !== 'string' || !isObject(fn) || typeof fn['name'] !== 'string') {
            throw invalidRequest(`${where} needs an id and a function name.`, where);
          }
          parts.push(reading.call(call['id'], fn['name'], toolArguments(fn['arguments'], `${where}.function.arguments`)));
        });
      }
      reading.add('assistant', parts);
      return;
    }
    case 'tool': {
      const id = message['tool_call_id'];
      const name = typeof id === 'string' ? reading.nameOf(id) : undefined;
      if (typeof id !== 'string' || name === undefined) {
        throw invalidRequest(`${param}.tool_call_id does not name a tool call of an earlier assistant message.`, `${param}.tool_call_id`);
      }
      const cache = messageCache(content, `${param}.content`);
      const result: Part = { type: 'tool_result', id, name, content: plainText(content, `${param}.content`) };
      reading.add('user', [cache ? { ...result, cache } : result]);
      return;
    }
    default:
      throw invalidRequest(`${param}.role '${String(message['role'])}' is not supported; use system, developer, user, assistant or tool.`, `${param}.role`);
  }
}

function readTools(raw: unknown): ToolSpec[] {
  if (!Array.isArray(raw)) return [];
  return raw.map((tool, i) => {
    const fn = (tool as JsonObject)['function'] as JsonObject;
    const spec: ToolSpec = { name: fn['name'] as string };
    if (typeof fn['description'] === 'string') spec.description = fn['description'];
    // A vendor's function arguments are an object: a schema of anything else could never be met.
    if (isObject(fn['parameters'])) spec.parameters = objectSchema(fn['parameters'], `tools[${i}].function.parameters`);
    // Asked only when true (false and null ask nothing): the vendor decides whether it can honour it.
    if (fn['strict'] === true) spec.strict = { param: `tools[${i}].function.strict` };
    const cache = cacheBreakpoint(tool as JsonObject, 'cache_control', () => `tools[${i}]`);
    if (cache) spec.cache = cache;
    return spec;
  });
}

function readToolChoice(raw: unknown, tools: ToolSpec[]): ToolChoice | null {
  if (raw === undefined || raw === null) return null;
  if (raw === 'auto' || raw === 'none' || raw === 'required') return raw;
  return namedToolChoice(((raw as JsonObject)['function'] as JsonObject)['name'] as string, tools, 'tool_choice');
}

function readResponseFormat(raw: unknown): ResponseFormat | null {
  if (!isObject(raw) || raw['type'] === 'text') return null;
  if (raw['type'] === 'json_object') return { type: 'json_object', param: 'response_format' };
  const spec = raw['json_schema'];
  if (!isObject(spec) || typeof spec['name'] !== 'string') throw invalidRequest('response_format.json_schema needs a name.', 'response_format.json_schema');
  const out: ResponseFormat = {
    type: 'json_schema',
    name: spec['name'],
    schema: objectSchema(spec['schema'], 'response_format.json_schema.schema'),
    param: 'response_format',
  };
  if (spec['strict'] === true) out.strict = { param: 'response_format.json_schema.strict' };
  if (typeof spec['description'] === 'string') out.description = { text: spec['description'], param: 'response_format.json_schema.description' };
  return out;
}

function readStop(raw: unknown): string[] {
  if (typeof raw === 'string') return [raw];
  return Array.isArray(raw) ? (raw as string[]) : [];
}

function readReasoning(raw: unknown): ReasoningRequest | null {
  return typeof raw === 'string' ? { kind: 'effort', effort: raw as ReasoningEffort, param: 'reasoning_effort' } : null;
}

/** Reads a chat request body that passed the reference schema (schema.ts); `adjust` announces what is approximated, `open` opens reasoning states. */
export function parseChatRequest(body: JsonObject, adjust: Adjust = refuseApproximation, open: OpenState = noOpener): NeutralRequest {
  refuseUntranslatable(body, adjust);
  refuseUnknownMembers(body);
  const reading = new TurnSequence();
  const messages = body['messages'];
  if (!Array.isArray(messages)) throw invalidRequest('messages is required.', 'messages');
  messages.forEach((message, i) => readMessage(reading, message, i, adjust, open));
  const { system, systemCache, turns } = reading.settle(WORDS);
  const tools = readTools(body['tools']);
  const topLogprobs = numberOrNull(body['top_logprobs']);
  const request: NeutralRequest = {
    system,
    turns,
    maxTokens: numberOrNull(body['max_completion_tokens']) ?? numberOrNull(body['max_tokens']),
    temperature: numberOrNull(body['temperature']),
    topP: numberOrNull(body['top_p']),
    stop: readStop(body['stop']),
    n: numberOrNull(body['n']) ?? 1,
    seed: numberOrNull(body['seed']),
    user: typeof body['safety_identifier'] === 'string' ? body['safety_identifier'] : typeof body['user'] === 'string' ? body['user'] : null,
    presencePenalty: numberOrNull(body['presence_penalty']),
    frequencyPenalty: numberOrNull(body['frequency_penalty']),
    logprobs: body['logprobs'] === true,
    topLogprobs,
    tools,
    toolChoice: readToolChoice(body['tool_choice'], tools),
    parallelToolCalls: body['parallel_tool_calls'] !== false,
    responseFormat: readResponseFormat(body['response_format']),
    topK: null,
    reasoning: readReasoning(body['reasoning_effort']),
  };
  if (systemCache) request.systemCache = systemCache;
  const cache = automaticCache(body);
  if (cache) request.cache = cache;
  return request;
}

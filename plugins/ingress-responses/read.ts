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
  type ResponseFormat,
  type ToolChoice,
  type ToolSpec,
} from '../../src/toolkit/neutral.js';
import { expandedSummary } from './compaction.js';
import { allowedTools, choiceName, flattenedName, type ToolPlan } from './tools.js';

/**
 * A Responses request (checked by schema.ts) read into the neutral request: `instructions`
 * first among the system text, then the items of the stored conversation it continues
 * (`previous_response_id`), then its own `input` items, with the chat format's message-sequence
 * rules (src/reference/sequence.ts). Calls and their outputs pair by `call_id`; item ids are
 * not read. Problems are 400s naming the item (`input[3].call_id`); a stored item is named as
 * `previous_response_id`.
 */

const WORDS: SequenceWords = { param: 'input', result: 'function_call_output', call: 'function_call' };

/** The parameter naming a place inside an item (`.content[1]`); a stored item has only `previous_response_id`. */
type Where = (path: string) => string;

const numberOrNull = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/** The `input` as items: a string is one user message. */
export const inputItems = (input: unknown): JsonObject[] =>
  typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : Array.isArray(input) ? (input as JsonObject[]) : [];

const textOf = (part: JsonObject): unknown => (part['type'] === 'refusal' ? part['refusal'] : part['text']);

/** Text of a system or developer message, or of a function_call_output: a string or text parts. */
function plainText(content: unknown, where: Where, field: string): string {
  if (typeof content === 'string') return content;
  return (content as JsonObject[])
    .map((part, j) => {
      const text = textOf(part);
      if (typeof text !== 'string') throw invalidRequest(`${where(`${field}[${j}]`)} must be a text part.`, where(`${field}[${j}]`));
      return text;
    })
    .join('\n');
}

/** A part's `prompt_cache_breakpoint`: a cache breakpoint after it (alpha's `cache_control`). */
const partCache = (part: JsonObject, param: string): CacheBreakpoint | undefined => cacheBreakpoint(part, 'prompt_cache_breakpoint', param);

/** The breakpoint of a system or developer message: `prompt_cache_breakpoint` on any of its parts. */
const messageCache = (content: unknown, where: Where): CacheBreakpoint | undefined =>
  messageBreakpoint(content, 'prompt_cache_breakpoint', (j) => where(`.content[${j}]`));

function contentParts(content: unknown, where: Where, allowImages: boolean): Part[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const parts: Part[] = [];
  (content as JsonObject[]).forEach((part, j) => {
    const param = where(`.content[${j}]`);
    const cache = partCache(part, param);
    if (part['type'] !== 'input_image') {
      const text = textOf(part) as string;
      if (text !== '') parts.push(cache ? { type: 'text', text, cache } : { type: 'text', text });
    } else if (allowImages) {
      const source = imageSource(part['image_url'], param, where(`.content[${j}].image_url`));
      parts.push(cache ? { type: 'image', source, param, cache } : { type: 'image', source, param });
    } else {
      throw invalidRequest(`${param}: images are taken in user messages only.`, param);
    }
  });
  return parts;
}

/** The text a reasoning item shows: its summary parts. */
const summaryText = (item: JsonObject): string => (item['summary'] as JsonObject[]).map((part) => part['text'] as string).join('\n\n');

function readItem(sequence: TurnSequence, item: JsonObject, where: Where, summaries: ReadonlyMap<string, string>, open: OpenState): void {
  switch (item['type'] ?? 'message') {
    case 'message': {
      const role = item['role'];
      if (role === 'system' || role === 'developer') sequence.addSystem(plainText(item['content'], where, '.content'), messageCache(item['content'], where));
      else sequence.add(role === 'user' ? 'user' : 'assistant', contentParts(item['content'], where, role === 'user'));
      return;
    }
    case 'function_call': {
      // A call of a namespace's function goes back under the name it was offered by (tools.ts).
      const namespace = item['namespace'];
      const name = typeof namespace === 'string' ? flattenedName(namespace, item['name'] as string) : (item['name'] as string);
      sequence.add('assistant', [sequence.call(item['call_id'] as string, name, toolArguments(item['arguments'], where('.arguments')))]);
      return;
    }
    case 'function_call_output': {
      const id = item['call_id'] as string;
      const name = sequence.nameOf(id);
      if (name === undefined) throw invalidRequest(`${where('.call_id')} does not name the call_id of an earlier function_call item.`, where('.call_id'));
      sequence.add('user', [{ type: 'tool_result', id, name, content: plainText(item['output'], where, '.output') }]);
      return;
    }
    case 'item_reference':
      // Each is resolved before the request is read (references.ts); one left here named nothing stored.
      throw invalidRequest(`${where('')} names no stored item.`, where(''), 'item_not_found');
    case 'compaction': {
      // Each is opened before the request is read (compaction.ts).
      const summary = summaries.get(item['encrypted_content'] as string);
      if (summary === undefined) throw invalidRequest(`${where('.encrypted_content')} was not opened.`, where('.encrypted_content'));
      sequence.add('user', [{ type: 'text', text: expandedSummary(summary) }]);
      return;
    }
    default: {
      // A reasoning item (the schema admits no other type). Without a state the gateway sealed
      // (null, another service's, or one that does not open: announced) no vendor could verify it: it is not sent.
      const content = item['encrypted_content'];
      const state = typeof content === 'string' ? verifiedState(open(content, 'encrypted_content')) : null;
      if (state) sequence.add('assistant', [{ type: 'reasoning', text: summaryText(item), state }]);
    }
  }
}

/** `auto` and `none` without tools ask nothing; `required` without tools cannot be honoured. */
function readToolChoice(raw: unknown, tools: readonly ToolSpec[]): ToolChoice | null {
  if (raw === undefined || raw === null) return null;
  if (isObject(raw)) return namedToolChoice(choiceName(raw), tools, 'tool_choice');
  if (!tools.length && raw === 'required') throw invalidRequest('tool_choice is required, but tools is empty.', 'tool_choice');
  return tools.length ? (raw as ToolChoice) : null;
}

function readFormat(text: unknown): ResponseFormat | null {
  const format = isObject(text) ? text['format'] : undefined;
  if (!isObject(format) || format['type'] === 'text') return null;
  if (format['type'] === 'json_object') return { type: 'json_object', param: 'text.format' };
  const out: ResponseFormat = {
    type: 'json_schema',
    name: format['name'] as string,
    schema: objectSchema(format['schema'], 'text.format.schema'),
    param: 'text.format',
  };
  if (format['strict'] === true) out.strict = { param: 'text.format.strict' };
  if (typeof format['description'] === 'string') out.description = { text: format['description'], param: 'text.format.description' };
  return out;
}

/**
 * Reads a checked Responses body, after `history`: the items of the stored conversation it
 * continues, oldest first. `input` is the body's items with each `item_reference` resolved,
 * `tools` what the vendor is offered (tools.ts), `summaries` those of the compaction items, and
 * `open` opens the reasoning items' states.
 */
export function readResponsesRequest(
  body: JsonObject,
  history: readonly JsonObject[],
  input: readonly JsonObject[],
  tools: ToolPlan,
  summaries: ReadonlyMap<string, string>,
  open: OpenState = noOpener,
): NeutralRequest {
  const sequence = new TurnSequence();
  if (typeof body['instructions'] === 'string') sequence.addSystem(body['instructions']);
  for (const item of history) readItem(sequence, item, () => 'previous_response_id', summaries, open);
  input.forEach((item, i) => readItem(sequence, item, (path) => `input[${i}]${path}`, summaries, open));
  const { system, systemCache, turns } = sequence.settle(WORDS);
  const choice = body['tool_choice'];
  const allowed = isObject(choice) && choice['type'] === 'allowed_tools' ? allowedTools(choice, tools.offered) : null;
  const offered = allowed ? allowed.tools : tools.offered;
  const effort = isObject(body['reasoning']) ? body['reasoning']['effort'] : null;
  const user = body['safety_identifier'] ?? body['user'];
  const request: NeutralRequest = {
    system,
    turns,
    maxTokens: numberOrNull(body['max_output_tokens']),
    temperature: numberOrNull(body['temperature']),
    topP: numberOrNull(body['top_p']),
    topK: null,
    stop: [],
    n: 1,
    seed: null,
    user: typeof user === 'string' ? user : null,
    presencePenalty: null,
    frequencyPenalty: null,
    logprobs: false,
    topLogprobs: null,
    tools: offered,
    toolChoice: readToolChoice(allowed ? allowed.mode : choice, offered),
    parallelToolCalls: body['parallel_tool_calls'] !== false,
    responseFormat: readFormat(body['text']),
    reasoning: typeof effort === 'string' ? { kind: 'effort', effort: effort as ReasoningEffort, param: 'reasoning.effort' } : null,
  };
  if (systemCache) request.systemCache = systemCache;
  const cache = automaticCache(body);
  if (cache) request.cache = cache;
  return request;
}

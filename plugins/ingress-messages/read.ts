import { invalidRequest, type Call, type GatewayError, type JsonObject } from '../../src/plugin-api.js';
import { imageSource as imageOfUrl, objectSchema, TurnSequence } from '../../src/toolkit/ingress.js';
import { isObject } from '../../src/toolkit/json.js';
import {
  stateOpener,
  verifiedState,
  type OpenState,
  REASONING_EFFORTS,
  type ImageSource,
  type NeutralRequest,
  type Part,
  type ReasoningEffort,
  type ReasoningRequest,
  type ReasoningState,
  type ResponseFormat,
  type ToolChoice,
  type ToolSpec,
} from '../../src/toolkit/neutral.js';
import { clearThinking, thinkingTurnsKept } from './context-edits.js';
import { unknownMemberOf } from './members.js';

/**
 * A Messages request (checked by schema.ts) read into the neutral request, for the families that
 * do not speak the Messages wire (alpha passes the body through and never reads it). The top-level
 * system and the system-role messages are folded, in order, into the system text; thinking blocks
 * become reasoning parts whose signature gives their state. What the neutral request cannot carry
 * is a 400 naming it in Messages notation — never dropped: docs/formats/messages.md.
 */

/** Top-level parameters read here; any other is refused (its effect could not reach the model). */
const KNOWN = new Set([
  'model',
  'max_tokens',
  'messages',
  'system',
  'tools',
  'tool_choice',
  'stop_sequences',
  'temperature',
  'top_p',
  'top_k',
  'metadata',
  'thinking',
  'output_config',
  'service_tier',
  'stream',
  'cache_control',
  'context_management',
]);
/** Block types read here (each in its role); any other type is refused. */
const READ_BLOCKS: ReadonlySet<string> = new Set(['text', 'image', 'tool_result', 'tool_use', 'thinking', 'redacted_thinking']);
/** What a token count reads: the prompt (sampling, limits and streaming have no place in a count). */
const KNOWN_COUNT = new Set(['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'output_config', 'cache_control', 'context_management']);
const KNOWN_OUTPUT_CONFIG = new Set(['effort', 'format']);
/** The Messages format's least thinking budget (alpha's vendor refuses less; the format is one for every family). */
const LEAST_THINKING_BUDGET = 1024;
const KNOWN_THINKING = new Set(['type', 'budget_tokens', 'display']);

const numberOrNull = (value: unknown): number | null => (typeof value === 'number' ? value : null);
const blocksOf = (content: unknown): JsonObject[] => (typeof content === 'string' ? [{ type: 'text', text: content }] : (content as JsonObject[]));

interface Reading {
  /** The model as the caller named it, for refusals. */
  model: string;
  /** The conversation, under the message-sequence rules every format shares. */
  sequence: TurnSequence;
  /** Opens the reasoning states the caller hands back. */
  open: OpenState;
}

const unsupported = (reading: Reading, where: string, what: string): GatewayError =>
  invalidRequest(`${where}: ${what} cannot be sent to the model '${reading.model}' (only alpha models receive the Messages body as it is).`, where);

function refuseUnknown(value: JsonObject, known: ReadonlySet<string>, prefix: string, reading: Reading): void {
  const extra = Object.keys(value).find((key) => !known.has(key));
  if (extra !== undefined) throw unsupported(reading, prefix + extra, `parameters such as ${prefix + extra}`);
}

/** Text blocks (system, tool results) → their texts; any other block is refused. */
function texts(content: unknown, where: string, reading: Reading, what: string): string[] {
  return blocksOf(content).flatMap((block, k) => {
    // Only a block array can hold another type (a string is one text block).
    if (block['type'] !== 'text') throw unsupported(reading, `${where}[${k}]`, `'${String(block['type'])}' blocks ${what}`);
    return block['text'] === '' ? [] : [block['text'] as string];
  });
}

/** The chat ingress's verdict on an image URL (src/reference/sequence.ts), a refusal given in Messages words. */
function judgedImage(url: string, kind: ImageSource['kind'], param: string, rule: string): ImageSource {
  try {
    const image = imageOfUrl(url, param, param);
    if (image.kind === kind) return image;
  } catch {
    // refused below in Messages words: the shared reader's speak of data URLs
  }
  throw invalidRequest(`${param} ${rule}`, param);
}

/** Base64 bytes are judged as the data URL they make (an image media type, base64 data); a URL must be http(s). */
function imageSource(source: JsonObject, where: string, reading: Reading): ImageSource {
  const param = `${where}.source`;
  if (source['type'] === 'base64') {
    return judgedImage(
      `data:${String(source['media_type'])};base64,${String(source['data'])}`,
      'data',
      param,
      'must hold an image: a media_type of image/… and base64 data.',
    );
  }
  if (source['type'] === 'url') return judgedImage(String(source['url']), 'url', param, 'must have a url of http or https.');
  throw unsupported(reading, param, `image sources of type '${String(source['type'])}'`);
}

/**
 * A thinking block's `signature` (kind `signature`) or a redacted block's `data` (kind
 * `redacted`): the gateway's seal gives its state (none when it does not open: announced),
 * anything else is alpha's own (a conversation begun with the vendor's own service, such as a
 * Claude Code session moved to the gateway: it names no deployment).
 */
function blockState(text: unknown, kind: 'signature' | 'redacted', reading: Reading): ReasoningState | null {
  if (typeof text !== 'string' || text === '') return null;
  const opened = reading.open(text, kind === 'signature' ? 'signature' : 'data');
  return opened === null ? { family: 'alpha', kind, data: text } : verifiedState(opened);
}

function toolResult(block: JsonObject, where: string, reading: Reading): Part {
  const id = block['tool_use_id'] as string;
  const name = reading.sequence.nameOf(id);
  if (name === undefined) throw invalidRequest(`${where}.tool_use_id does not name a tool_use block of an earlier assistant message.`, `${where}.tool_use_id`);
  const content = block['content'] === undefined ? '' : texts(block['content'], `${where}.content`, reading, 'inside a tool result').join('\n');
  return { type: 'tool_result', id, name, content, ...(block['is_error'] === true ? { isError: true } : {}) };
}

function part(block: JsonObject, where: string, role: 'user' | 'assistant', reading: Reading): Part | null {
  switch (`${role}:${String(block['type'])}`) {
    case 'user:text':
    case 'assistant:text':
      return block['text'] === '' ? null : { type: 'text', text: block['text'] as string };
    case 'user:image':
      return { type: 'image', source: imageSource(block['source'] as JsonObject, where, reading), param: where };
    case 'user:tool_result':
      return toolResult(block, where, reading);
    case 'assistant:tool_use':
      return reading.sequence.call(block['id'] as string, block['name'] as string, block['input'] as JsonObject);
    case 'assistant:thinking':
      return { type: 'reasoning', text: block['thinking'] as string, state: blockState(block['signature'], 'signature', reading) };
    case 'assistant:redacted_thinking':
      return { type: 'reasoning', text: '', state: blockState(block['data'], 'redacted', reading) };
    default:
      if (READ_BLOCKS.has(String(block['type'])))
        throw invalidRequest(`${where}: '${String(block['type'])}' blocks cannot stand in ${role === 'assistant' ? 'an' : 'a'} ${role} message.`, where);
      throw unsupported(reading, where, `'${String(block['type'])}' blocks`);
  }
}

function readMessage(reading: Reading, message: JsonObject, i: number): void {
  const where = `messages[${i}].content`;
  const role = message['role'] as 'user' | 'assistant' | 'system';
  // Mid-conversation system messages (Claude Code's) join the system text, in order.
  if (role === 'system') {
    for (const text of texts(message['content'], where, reading, 'in a system message')) reading.sequence.addSystem(text);
    return;
  }
  const content = message['content'];
  const parts = blocksOf(content).flatMap((block, j) => part(block, typeof content === 'string' ? where : `${where}[${j}]`, role, reading) ?? []);
  reading.sequence.add(role, parts);
}

/**
 * The client tools as offered to the model. A server tool (a versioned `type`: web search, code
 * execution, …), which these families cannot run, is left out and announced
 * (`tools[2]=omitted:web_search_20250305`); a deferred tool is offered at once (these families
 * have no tool search) and announced (`tools[1]=offered:deferred`). Under `parameters: strict`
 * each is refused instead. The names of the tools left out are `omitted`'s.
 */
function readTools(raw: unknown, reading: Reading, call: Call, omitted: Set<string>): ToolSpec[] {
  if (!Array.isArray(raw)) return [];
  return (raw as JsonObject[]).flatMap((tool, i): ToolSpec[] => {
    const where = `tools[${i}]`;
    if (tool['type'] !== undefined && tool['type'] !== 'custom') {
      const type = String(tool['type']);
      call.adjust(
        where,
        `omitted:${type}`,
        `${where}: server tools such as '${type}' cannot be run for the model '${reading.model}' (only alpha models run them); it could only be left out.`,
      );
      omitted.add(tool['name'] as string);
      return [];
    }
    if (tool['defer_loading'] === true) {
      call.adjust(
        where,
        'offered:deferred',
        `${where} is deferred (defer_loading), and the model '${reading.model}' has no tool search: it could only be offered at once.`,
      );
    }
    // A vendor's function arguments are an object: a schema of anything else could never be met.
    const spec: ToolSpec = { name: tool['name'] as string, parameters: objectSchema(tool['input_schema'], `tools[${i}].input_schema`) };
    if (typeof tool['description'] === 'string') spec.description = tool['description'];
    if (tool['strict'] === true) spec.strict = { param: `${where}.strict` };
    return [spec];
  });
}

function readToolChoice(raw: unknown, tools: readonly ToolSpec[], omitted: ReadonlySet<string>): ToolChoice | null {
  if (!isObject(raw)) return null;
  switch (raw['type']) {
    case 'any':
      // A call of some tool, with none to call: no vendor can answer it (alpha refuses it too).
      if (!tools.length) throw invalidRequest('tool_choice.type is any, but tools is empty.', 'tool_choice.type');
      return 'required';
    case 'tool': {
      const name = raw['name'] as string;
      if (omitted.has(name))
        throw invalidRequest(`tool_choice forces the server tool '${name}', which is not offered to this model (it cannot run it).`, 'tool_choice.name');
      if (!tools.some((tool) => tool.name === name)) throw invalidRequest(`tool_choice.name names '${name}', which is not in tools.`, 'tool_choice.name');
      return { name };
    }
    default:
      return raw['type'] as 'auto' | 'none';
  }
}

/**
 * `thinking` and `output_config.effort` → what the caller asks of the model's reasoning
 * (docs/reasoning.md#the-messages-format): a budget, off, an effort; adaptive thinking without
 * one is alpha's default effort, `high`, asked only of a model that reasons; `display: "omitted"`
 * asks for the thinking without its text.
 */
function readReasoning(body: JsonObject, reading: Reading): ReasoningRequest | null {
  const thinking = isObject(body['thinking']) ? body['thinking'] : null;
  if (thinking) refuseUnknown(thinking, KNOWN_THINKING, 'thinking.', reading);
  const asked = readAsked(body, thinking, reading);
  return asked && thinking?.['display'] === 'omitted' ? { ...asked, omitted: true } : asked;
}

/** A budget beside thinking that is adaptive or off would be ignored: it is refused instead. */
function refuseBudget(thinking: JsonObject): void {
  if (thinking['budget_tokens'] !== undefined)
    throw invalidRequest(`thinking.budget_tokens goes with thinking.type enabled, not ${String(thinking['type'])}.`, 'thinking.budget_tokens');
}

/** The format's rules for a budget: at least 1,024 tokens, and less than `max_tokens` (a count has none). */
function checkedBudget(tokens: number, maxTokens: unknown): number {
  if (tokens < LEAST_THINKING_BUDGET) throw invalidRequest(`thinking.budget_tokens must be at least ${LEAST_THINKING_BUDGET}.`, 'thinking.budget_tokens');
  if (typeof maxTokens === 'number' && tokens >= maxTokens)
    throw invalidRequest('thinking.budget_tokens must be less than max_tokens.', 'thinking.budget_tokens');
  return tokens;
}

/** The adaptive effort when the caller names none: alpha's default. */
export const ADAPTIVE_DEFAULT_EFFORT: ReasoningEffort = 'high';

function readAsked(body: JsonObject, thinking: JsonObject | null, reading: Reading): ReasoningRequest | null {
  const effort = isObject(body['output_config']) ? body['output_config']['effort'] : undefined;
  if (effort !== undefined && effort !== null) {
    if (!(REASONING_EFFORTS as readonly unknown[]).includes(effort))
      throw invalidRequest(`output_config.effort must be one of ${REASONING_EFFORTS.join(', ')}.`, 'output_config.effort');
    if (thinking && thinking['type'] !== 'adaptive')
      throw invalidRequest('output_config.effort goes with thinking.type adaptive (or no thinking) for this model.', 'output_config.effort');
    return { kind: 'effort', effort: effort as ReasoningEffort, param: 'output_config.effort' };
  }
  switch (thinking?.['type']) {
    case undefined:
      return null;
    case 'adaptive': // the model decides how much, at alpha's default effort
      refuseBudget(thinking);
      return { kind: 'effort', effort: ADAPTIVE_DEFAULT_EFFORT, param: 'thinking', ifReasoning: true };
    case 'enabled':
      return { kind: 'budget', tokens: checkedBudget(thinking['budget_tokens'] as number, body['max_tokens']), param: 'thinking.budget_tokens' };
    case 'disabled':
      refuseBudget(thinking);
      return { kind: 'off', param: 'thinking' };
    default:
      throw unsupported(reading, 'thinking.type', `thinking of type '${String(thinking?.['type'])}'`);
  }
}

function readFormat(config: unknown): ResponseFormat | null {
  const format = isObject(config) ? config['format'] : null;
  if (!isObject(format)) return null;
  if (format['type'] !== 'json_schema') throw invalidRequest("output_config.format.type must be 'json_schema'.", 'output_config.format.type');
  if (format['schema'] === undefined || format['schema'] === null)
    throw invalidRequest('output_config.format.schema is required.', 'output_config.format.schema');
  // The format always constrains the output: strict wherever the schema allows it.
  const strict = { param: 'output_config.format', implied: true } as const;
  return { type: 'json_schema', name: 'output', schema: objectSchema(format['schema'], 'output_config.format.schema'), param: 'output_config.format', strict };
}

/** Reads the body of a Messages call (a create or a token count) into the neutral request. */
export function readMessagesRequest(call: Call): NeutralRequest {
  const body = call.body;
  const reading: Reading = { model: String(body['model']), sequence: new TurnSequence(), open: stateOpener(call) };
  refuseUnknown(body, call.endpoint.operation === 'count_tokens' ? KNOWN_COUNT : KNOWN, '', reading);
  if (isObject(body['output_config'])) refuseUnknown(body['output_config'], KNOWN_OUTPUT_CONFIG, 'output_config.', reading);
  const member = unknownMemberOf(body);
  if (member !== undefined) throw unsupported(reading, member, `members such as ${member}`);
  if (body['system'] !== undefined) for (const text of texts(body['system'], 'system', reading, 'in the system prompt')) reading.sequence.addSystem(text);
  (body['messages'] as JsonObject[]).forEach((message, i) => readMessage(reading, message, i));
  const settled = reading.sequence.settle({ param: 'messages', result: 'tool_result block', call: 'assistant message' });
  const kept = thinkingTurnsKept(body['context_management']);
  const turns = kept === null ? settled.turns : clearThinking(settled.turns, kept);
  const system = settled.system;
  const omitted = new Set<string>();
  const tools = readTools(body['tools'], reading, call, omitted);
  const choice = isObject(body['tool_choice']) ? body['tool_choice'] : null;
  const metadata = isObject(body['metadata']) ? body['metadata'] : null;
  return {
    system,
    turns,
    maxTokens: numberOrNull(body['max_tokens']),
    temperature: numberOrNull(body['temperature']),
    topP: numberOrNull(body['top_p']),
    topK: numberOrNull(body['top_k']),
    stop: Array.isArray(body['stop_sequences']) ? (body['stop_sequences'] as string[]) : [],
    n: 1,
    seed: null,
    user: typeof metadata?.['user_id'] === 'string' ? metadata['user_id'] : null,
    presencePenalty: null,
    frequencyPenalty: null,
    logprobs: false,
    topLogprobs: null,
    tools,
    toolChoice: readToolChoice(choice, tools, omitted),
    parallelToolCalls: choice?.['disable_parallel_tool_use'] !== true,
    responseFormat: readFormat(body['output_config']),
    reasoning: readReasoning(body, reading),
  };
}

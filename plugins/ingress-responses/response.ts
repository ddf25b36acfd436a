import type { JsonObject } from '../../src/plugin-api.js';
import { isObject } from '../../src/toolkit/json.js';
import { effectiveStrict } from '../../src/toolkit/json-schema.js';
import type { FinishReason, ReplyChoice, ReplyToolCall, ReplyUsage, SealState } from '../../src/toolkit/neutral.js';
import { outputItemId } from './item-ids.js';
import type { NamespacedName } from './tools.js';

/**
 * The pieces of a Responses `response` object: its output items (reasoning, message with its
 * text and refusal parts, function_call), its usage, how a finish reason sets its status, and
 * the echo of the request's settings. Shared by the whole reply (output.ts) and the stream's
 * events (stream.ts).
 */

export type ItemStatus = 'completed' | 'incomplete';

/** What ends a response: its status and, for an incomplete one, why. */
export interface Ending {
  status: 'completed' | 'incomplete';
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
}

export function endingOf(finish: FinishReason): Ending {
  if (finish === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finish === 'content_filter') return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** The kinds of a message's content part: the text, or the model's refusal to answer. */
export type PartType = 'output_text' | 'refusal';

export const contentPart = (type: PartType, text: string): JsonObject =>
  type === 'output_text' ? { type, text, annotations: [], logprobs: [] } : { type, refusal: text };

/** The bytes of JSON.stringify(contentPart(type, text)), from the text's own JSON (`"…"`): a stream writes that once for its events. */
export const contentPartJson = (type: PartType, textJson: string): string =>
  type === 'output_text' ? `{"type":"output_text","text":${textJson},"annotations":[],"logprobs":[]}` : `{"type":"refusal","refusal":${textJson}}`;

export const messageItem = (id: string, content: JsonObject[], status: ItemStatus): JsonObject => ({
  id,
  type: 'message',
  role: 'assistant',
  status,
  content,
});

/** A whole reply's message content: the text, then the refusal (each only when there is one). */
function messageContent(choice: ReplyChoice): JsonObject[] {
  const content: JsonObject[] = [];
  if (choice.content) content.push(contentPart('output_text', choice.content));
  if (choice.refusal) content.push(contentPart('refusal', choice.refusal));
  return content;
}

/** A call of a function tool; one of a namespace's functions under its own name, with its `namespace` (tools.ts). */
export function functionCallItem(
  id: string,
  call: ReplyToolCall,
  status: ItemStatus | 'in_progress',
  namespaced: ReadonlyMap<string, NamespacedName>,
): JsonObject {
  const inner = namespaced.get(call.name);
  if (inner) return { id, type: 'function_call', status, call_id: call.id, name: inner.name, namespace: inner.namespace, arguments: call.arguments };
  return { id, type: 'function_call', status, call_id: call.id, name: call.name, arguments: call.arguments };
}

/**
 * Reasoning the model showed, as a summary, with the vendor's state sealed by the gateway
 * (`sealed`, whether or not `include` asked for it). Without a state the item has no
 * `encrypted_content` member: the specification types it as a string, and clients that validate
 * refuse `null`.
 */
export function reasoningItem(id: string, text: string, sealed: string | null, status: ItemStatus = 'completed'): JsonObject {
  const item: JsonObject = { id, type: 'reasoning', status, summary: text === '' ? [] : [{ type: 'summary_text', text }] };
  if (sealed !== null) item['encrypted_content'] = sealed;
  return item;
}

/** The output items of a whole reply's choice, in the order they were produced: reasoning, the message, the calls; ids named after the response `responseId`. */
export function outputItems(
  choice: ReplyChoice,
  parallelToolCalls: boolean,
  responseId: string,
  namespaced: ReadonlyMap<string, NamespacedName>,
  seal: SealState,
): JsonObject[] {
  const items: JsonObject[] = (choice.reasoning ?? []).map((run, i) =>
    reasoningItem(outputItemId('rs_', responseId, i), run.text, run.state ? seal(run.state) : null),
  );
  const content = messageContent(choice);
  if (content.length) items.push(messageItem(outputItemId('msg_', responseId, items.length), content, 'completed'));
  // With parallel_tool_calls: false, one call at most: the first (beta cannot be asked for fewer).
  const calls = parallelToolCalls ? choice.toolCalls : choice.toolCalls.slice(0, 1);
  for (const call of calls) items.push(functionCallItem(outputItemId('fc_', responseId, items.length), call, 'completed', namespaced));
  const last = items.at(-1);
  if (last) last['status'] = endingOf(choice.finish).status;
  return items;
}

/** `cache_write_tokens` (the prompt tokens written to a vendor's cache, as openai-node types it) only where there were some. */
export function responsesUsage(usage: ReplyUsage): JsonObject {
  const inputDetails: JsonObject = { cached_tokens: usage.cachedTokens ?? 0 };
  if (usage.cacheWriteTokens) inputDetails['cache_write_tokens'] = usage.cacheWriteTokens;
  return {
    input_tokens: usage.promptTokens,
    input_tokens_details: inputDetails,
    output_tokens: usage.completionTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.promptTokens + usage.completionTokens,
  };
}

/**
 * A tool as the response echoes it. A function tool has every member the specification requires
 * (`description` and `parameters` null when not given) and its effective `strict`: as sent, else
 * (absent or null) true exactly when its parameters are a strict-compatible schema, as the
 * Responses API defaults it. Other tools are echoed as sent.
 */
function echoedTool(tool: unknown): unknown {
  if (!isObject(tool) || tool['type'] !== 'function') return tool;
  const parameters = tool['parameters'] ?? null;
  return { ...tool, description: tool['description'] ?? null, parameters, strict: effectiveStrict(tool) };
}

/** The output format as the response echoes it: a JSON schema format with every member the specification requires, `strict` as for a tool. */
function echoedFormat(format: unknown): unknown {
  if (!isObject(format)) return { type: 'text' };
  if (format['type'] !== 'json_schema') return format;
  return { ...format, description: format['description'] ?? null, strict: effectiveStrict({ strict: format['strict'], parameters: format['schema'] }) };
}

/** A request value, or `fallback` when it is absent or null. */
function given(body: JsonObject, field: string, fallback: unknown): unknown {
  const value = body[field];
  return value ?? fallback;
}

/**
 * The request's settings as every response object of the call repeats them: every member the
 * Open Responses `ResponseResource` requires, with the request's value or the value in effect
 * (docs/formats/responses.md#the-response). Sampling settings no vendor was sent are echoed at
 * their defaults (1, 1, 0, 0); `service_tier` is the tier the call ran at, the vendor's standard
 * one, whatever was asked; `background` is false (every response is answered in the foreground).
 */
export function echoOf(body: JsonObject): JsonObject {
  const text = isObject(body['text']) ? body['text'] : {};
  const reasoning = isObject(body['reasoning']) ? body['reasoning'] : {};
  return {
    background: false,
    frequency_penalty: given(body, 'frequency_penalty', 0),
    instructions: given(body, 'instructions', null),
    max_output_tokens: given(body, 'max_output_tokens', null),
    max_tool_calls: given(body, 'max_tool_calls', null),
    metadata: given(body, 'metadata', {}),
    parallel_tool_calls: body['parallel_tool_calls'] !== false,
    presence_penalty: given(body, 'presence_penalty', 0),
    previous_response_id: given(body, 'previous_response_id', null),
    prompt_cache_key: given(body, 'prompt_cache_key', null),
    reasoning: { effort: reasoning['effort'] ?? null, summary: reasoning['summary'] ?? null },
    safety_identifier: given(body, 'safety_identifier', null),
    service_tier: 'default',
    store: body['store'] !== false,
    temperature: given(body, 'temperature', 1),
    text: { format: echoedFormat(text['format']), ...(text['verbosity'] ? { verbosity: text['verbosity'] } : {}) },
    tool_choice: given(body, 'tool_choice', 'auto'),
    tools: Array.isArray(body['tools']) ? (body['tools'] as unknown[]).map(echoedTool) : [],
    top_logprobs: given(body, 'top_logprobs', 0),
    top_p: given(body, 'top_p', 1),
    truncation: 'disabled',
    user: given(body, 'user', null),
  };
}

/** The request's fields that echoOf reads: when none is set (or each is null), the echo is the defaults'. */
const ECHOED = [
  'frequency_penalty',
  'instructions',
  'max_output_tokens',
  'max_tool_calls',
  'metadata',
  'parallel_tool_calls',
  'presence_penalty',
  'previous_response_id',
  'prompt_cache_key',
  'reasoning',
  'safety_identifier',
  'store',
  'temperature',
  'text',
  'tool_choice',
  'tools',
  'top_logprobs',
  'top_p',
  'user',
];
const DEFAULT_ECHO = JSON.stringify(echoOf({})).slice(1, -1);

/**
 * The echo's members as JSON text (`"background":false,…,"user":null`). Most requests set none
 * of the echoed fields: their echo is serialised once, at load (0.8 µs a call).
 */
export function echoMembers(body: JsonObject): string {
  for (const field of ECHOED) if (body[field] !== undefined && body[field] !== null) return JSON.stringify(echoOf(body)).slice(1, -1);
  return DEFAULT_ECHO;
}

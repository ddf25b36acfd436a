import { invalidRequest, type JsonObject, type ModelEntry } from '../../src/plugin-api.js';
import { refuseToolNameClash, type NeutralRequest, type Part, type ToolChoice } from '../../src/toolkit/neutral.js';
import { withReplayableTurns } from '../../src/toolkit/vendor.js';
import { cacheControl, writeBreakpoints } from './cache.js';
import { alphaStructured, JSON_TOOL, type Adjust } from './structured.js';
import { alphaThinking } from './thinking.js';

/**
 * Reference chat request → alpha Messages request (docs/vendor-formats.md#alpha-request).
 *
 * JSON output and strict tools: structured.ts. A JSON-schema answer goes as
 * `output_config.format`; where that cannot be, the answer is a forced tool (`json_response`)
 * whose input is the JSON text of the answer (see response.ts, stream.ts).
 * Thinking: thinking.ts; thinking blocks of earlier turns go back as they came (`blocks`).
 * Prompt-cache breakpoints: cache.ts.
 */

/** Image types alpha accepts as base64. */
const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** A conversation that opens with the assistant gets this user turn first (alpha requires a user turn first). */
export const OPENING_USER_TEXT = '.';

const TOOL_ID = /^[a-zA-Z0-9_-]+$/;

/** Tool ids from other vendors made valid for alpha (`^[a-zA-Z0-9_-]+$`), the same way on calls and results. */
export const alphaToolId = (id: string): string => (TOOL_ID.test(id) ? id : id.replace(/[^a-zA-Z0-9_-]/g, '_') || '_');

/** A neutral part as alpha content blocks (none for reasoning another family produced: alpha cannot verify it). */
function blocks(part: Part): JsonObject[] {
  if (part.type !== 'reasoning') return [part.cache ? { ...block(part), cache_control: cacheControl(part.cache) } : block(part)];
  const state = part.state;
  if (state?.family !== 'alpha') return [];
  return [state.kind === 'redacted' ? { type: 'redacted_thinking', data: state.data } : { type: 'thinking', thinking: part.text, signature: state.data }];
}

function block(part: Exclude<Part, { type: 'reasoning' }>): JsonObject {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      if (part.source.kind === 'url') return { type: 'image', source: { type: 'url', url: part.source.url } };
      if (!IMAGE_TYPES.has(part.source.mediaType)) {
        throw invalidRequest(`${part.param}: ${part.source.mediaType} images are not supported by this model (use jpeg, png, gif or webp).`, part.param);
      }
      return { type: 'image', source: { type: 'base64', media_type: part.source.mediaType, data: part.source.data } };
    case 'tool_call':
      return { type: 'tool_use', id: alphaToolId(part.id), name: part.name, input: part.args };
    case 'tool_result':
      return { type: 'tool_result', tool_use_id: alphaToolId(part.id), content: part.content };
  }
}

function toolChoice(request: NeutralRequest, jsonMode: boolean): JsonObject | undefined {
  let choice: ToolChoice | null = request.toolChoice;
  if (jsonMode && (choice === null || typeof choice !== 'object')) {
    // With the caller's own tools allowed, the model must answer with one of them or with the JSON tool.
    if (request.tools.length && choice !== 'none') choice = 'required';
    else choice = { name: JSON_TOOL };
  }
  if (choice === null) return request.parallelToolCalls || !request.tools.length ? undefined : { type: 'auto', disable_parallel_tool_use: true };
  const mapped: JsonObject =
    choice === 'auto' ? { type: 'auto' } : choice === 'none' ? { type: 'none' } : choice === 'required' ? { type: 'any' } : { type: 'tool', name: choice.name };
  if (!request.parallelToolCalls && choice !== 'none') mapped['disable_parallel_tool_use'] = true;
  return mapped;
}

/**
 * The functions the conversation's calls and results name. Alpha refuses tool_use and
 * tool_result blocks in a request that defines no tools, and callers replaying a history without
 * offering tools (Codex sends `tools: []`) are common: such a request declares these, with an
 * open input schema, and `tool_choice: none`, so the conversation goes through and no tool is offered.
 */
function historyTools(request: NeutralRequest): JsonObject[] {
  const names = new Set(
    request.turns.flatMap((turn) => turn.parts.flatMap((part) => (part.type === 'tool_call' || part.type === 'tool_result' ? [part.name] : []))),
  );
  return [...names].map((name) => ({ name, input_schema: { type: 'object' } }));
}

/** Refusals for what alpha cannot do, each naming the field. */
function checkSupported(request: NeutralRequest): void {
  if (request.n > 1) throw invalidRequest('n greater than 1 is not supported by this model; send several requests instead.', 'n');
  if (request.temperature !== null && request.temperature > 1) {
    throw invalidRequest('temperature must be between 0 and 1 for this model.', request.params?.temperature ?? 'temperature');
  }
  const names = request.params ?? {};
  if (request.stop.some((stop) => stop.trim() === ''))
    throw invalidRequest('stop sequences must not be empty or whitespace only for this model.', names.stop ?? 'stop');
  if (request.logprobs) throw invalidRequest('logprobs are not available for this model.', 'logprobs');
  if (request.seed !== null) throw invalidRequest('seed is not supported by this model: its sampling cannot be seeded.', names.seed ?? 'seed');
  if (request.presencePenalty)
    throw invalidRequest('presence_penalty is not supported by this model (send 0 or leave it out).', names.presencePenalty ?? 'presence_penalty');
  if (request.frequencyPenalty)
    throw invalidRequest('frequency_penalty is not supported by this model (send 0 or leave it out).', names.frequencyPenalty ?? 'frequency_penalty');
}

/** Without a call to announce an approximation on (tests, the bench), it is refused, as under `parameters: strict`. */
const refuseAdjustment: Adjust = (param, _action, refusal) => {
  throw invalidRequest(refusal, param);
};

/** The alpha request body, and whether the JSON answer comes as the forced `json_response` tool (its input is the answer). */
export interface AlphaRequest {
  body: JsonObject;
  jsonTool: boolean;
}

export function alphaRequest(asked: NeutralRequest, model: ModelEntry, stream: boolean, adjust: Adjust = refuseAdjustment): AlphaRequest {
  const request = withReplayableTurns(asked, (state) => state?.family === 'alpha');
  checkSupported(request);
  const structured = alphaStructured(request, adjust);
  refuseToolNameClash(request, structured.jsonTool ? JSON_TOOL : null);
  const maxTokens = request.maxTokens ?? model.maxOutputTokens;
  const thinking = alphaThinking(request, model, maxTokens, structured.jsonTool?.why ?? null);
  if (structured.format) thinking['output_config'] = { ...(thinking['output_config'] as JsonObject | undefined), format: structured.format };
  const messages = request.turns.map((turn) => ({ role: turn.role, content: turn.parts.flatMap(blocks) }));
  if (messages[0]?.role === 'assistant') messages.unshift({ role: 'user', content: [{ type: 'text', text: OPENING_USER_TEXT }] });
  const body: JsonObject = { model: model.upstream, max_tokens: maxTokens, messages };
  if (request.system.length) body['system'] = request.system.map((text) => ({ type: 'text', text }));
  if (request.stop.length) body['stop_sequences'] = request.stop;
  if (request.temperature !== null) body['temperature'] = request.temperature;
  if (request.topP !== null) body['top_p'] = request.topP;
  if (request.topK !== null) body['top_k'] = request.topK;
  if (request.user !== null) body['metadata'] = { user_id: request.user };
  Object.assign(body, thinking);
  const declared = structured.tools;
  const history = declared.length ? [] : historyTools(request);
  if (declared.length || history.length) body['tools'] = [...declared, ...history];
  const choice = history.length ? { type: 'none' } : toolChoice(request, structured.jsonTool !== null);
  if (choice) body['tool_choice'] = choice;
  if (stream) body['stream'] = true;
  writeBreakpoints(request, body, adjust);
  return { body, jsonTool: structured.jsonTool !== null };
}

/** The body alone (for callers that read no reply). */
export const alphaRequestBody = (asked: NeutralRequest, model: ModelEntry, stream: boolean, adjust?: Adjust): JsonObject =>
  alphaRequest(asked, model, stream, adjust).body;

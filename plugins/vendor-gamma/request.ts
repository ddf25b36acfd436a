import { createHash } from 'node:crypto';
import { invalidRequest, type JsonObject, type ModelEntry } from '../../src/plugin-api.js';
import { strictCompatible } from '../../src/toolkit/json-schema.js';
import {
  refuseToolNameClash,
  type NeutralRequest,
  type Part,
  type ResponseFormat,
  type StrictAsk,
  type ToolChoice,
  type Turn,
} from '../../src/toolkit/neutral.js';
import { reasoningPlan, replaysNone, unsupportedSetting, withReplayableTurns } from '../../src/toolkit/vendor.js';

/**
 * The neutral request → a reference chat request for the gamma upstream (whose wire format is
 * the reference one), for callers of another format (docs/vendor-formats.md#gamma). What the
 * reference format cannot carry is refused with a 400 naming the caller's parameter.
 */

function userContent(parts: readonly Part[]): JsonObject[] {
  return parts.flatMap((part): JsonObject[] => {
    if (part.type === 'text') return [{ type: 'text', text: part.text }];
    if (part.type !== 'image') return [];
    const url = part.source.kind === 'url' ? part.source.url : `data:${part.source.mediaType};base64,${part.source.data}`;
    return [{ type: 'image_url', image_url: { url } }];
  });
}

/** One neutral turn as reference messages: tool results are `tool` messages, ahead of the user's own content. */
function messages(turn: Turn): JsonObject[] {
  if (turn.role === 'user') {
    const results = turn.parts.flatMap((part) => (part.type === 'tool_result' ? [{ role: 'tool', tool_call_id: part.id, content: part.content }] : []));
    const content = userContent(turn.parts);
    return content.length ? [...results, { role: 'user', content }] : results;
  }
  const text = turn.parts.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
  const calls = turn.parts.flatMap((part) =>
    part.type === 'tool_call' ? [{ id: part.id, type: 'function', function: { name: part.name, arguments: JSON.stringify(part.args) } }] : [],
  );
  // Gamma replays no reasoning (another vendor's states are dropped): only the turn's text and calls go back.
  const message: JsonObject = { role: 'assistant', content: text === '' ? null : text };
  if (calls.length) message['tool_calls'] = calls;
  return [message];
}

function toolChoice(choice: ToolChoice): unknown {
  return typeof choice === 'object' ? { type: 'function', function: { name: choice.name } } : choice;
}

/** The caller's reasoning request as the reference format's `reasoning_effort`, by the model's effort table (docs/reasoning.md#gamma). */
function reasoningEffort(request: NeutralRequest, model: ModelEntry): string | null {
  const plan = reasoningPlan(request.reasoning, model, request.maxTokens ?? model.maxOutputTokens);
  if (!plan) return null;
  if (plan.setting.kind !== 'effort') throw unsupportedSetting(model, 'gamma');
  return plan.setting.effort;
}

/**
 * The `strict` gamma is sent (none: the format's default, off): `true` as asked, and for a strict
 * only implied (a Responses tool without `strict`, a Messages format) whether the schema is
 * strict-compatible, written out, since gamma's own default for an absent `strict` is off.
 */
function strictOf(strict: StrictAsk | undefined, schema: JsonObject | undefined): { strict?: boolean } {
  if (!strict) return {};
  return { strict: strict.implied ? strictCompatible(schema) : true };
}

/** A JSON-schema format as the reference `response_format.json_schema`. */
function jsonSchema(format: Extract<ResponseFormat, { type: 'json_schema' }>): JsonObject {
  const out: JsonObject = { name: format.name, schema: format.schema };
  if (format.description) out['description'] = format.description.text;
  return { ...out, ...strictOf(format.strict, format.schema) };
}

/** The most characters gamma takes in `user` (the reference format's end-user identifier). */
const MAX_USER_CHARS = 64;

/**
 * An end-user identifier as gamma takes it: as sent when it fits, else `uh_` and the base64url
 * SHA-256 of it (46 characters), so one user stays one identifier. Claude Code's
 * `metadata.user_id` is a JSON string of several ids, longer than gamma allows.
 */
export function gammaUser(user: string): string {
  return user.length <= MAX_USER_CHARS ? user : `uh_${createHash('sha256').update(user).digest('base64url')}`;
}

/** An approximation announced on the call (`Call.adjust`). */
export type Adjust = (param: string, action: string, refusal: string) => void;

/** Without a call to announce an approximation on (tests), it is refused, as under `parameters: strict`. */
const refuseAdjustment: Adjust = (param, _action, refusal) => {
  throw invalidRequest(refusal, param);
};

/** Gamma has no top-k sampling: the rest of the request is honoured, without it, and said so (`top_k=dropped`). */
export function gammaChatBody(asked: NeutralRequest, model: ModelEntry, stream: boolean, adjust: Adjust = refuseAdjustment): JsonObject {
  const request = withReplayableTurns(asked, replaysNone);
  if (request.topK !== null) {
    const param = request.params?.topK ?? 'top_k';
    adjust(param, 'dropped', `${param} is not supported by this model.`);
  }
  refuseToolNameClash(request);
  const body: JsonObject = { model: model.upstream, messages: [] };
  const out = body['messages'] as JsonObject[];
  if (request.system.length) out.push({ role: 'system', content: request.system.join('\n\n') });
  for (const turn of request.turns) out.push(...messages(turn));
  const set = (field: string, value: unknown): void => {
    if (value !== null && value !== undefined) body[field] = value;
  };
  set('max_completion_tokens', request.maxTokens);
  set('temperature', request.temperature);
  set('top_p', request.topP);
  if (request.stop.length) body['stop'] = request.stop;
  if (request.n !== 1) body['n'] = request.n;
  set('seed', request.seed);
  set('user', request.user === null ? null : gammaUser(request.user));
  set('presence_penalty', request.presencePenalty);
  set('frequency_penalty', request.frequencyPenalty);
  if (request.logprobs) {
    body['logprobs'] = true;
    set('top_logprobs', request.topLogprobs);
  }
  if (request.tools.length) {
    body['tools'] = request.tools.map((tool) => ({
      type: 'function',
      function: {
        name: tool.name,
        ...(tool.description !== undefined ? { description: tool.description } : {}),
        ...(tool.parameters ? { parameters: tool.parameters } : {}),
        ...strictOf(tool.strict, tool.parameters),
      },
    }));
    if (!request.parallelToolCalls) body['parallel_tool_calls'] = false;
  }
  if (request.toolChoice !== null) body['tool_choice'] = toolChoice(request.toolChoice);
  const effort = reasoningEffort(request, model);
  if (effort) body['reasoning_effort'] = effort;
  const format = request.responseFormat;
  if (format) body['response_format'] = format.type === 'json_object' ? { type: 'json_object' } : { type: 'json_schema', json_schema: jsonSchema(format) };
  if (stream) {
    body['stream'] = true;
    body['stream_options'] = { include_usage: true };
  }
  return body;
}

import type { Call, JsonObject } from '../../src/plugin-api.js';
import { isObject } from '../../src/toolkit/json.js';

/**
 * The body of a Gemini call as the reader takes it. Google's proto-JSON accepts snake_case names
 * as well as camelCase (`system_instruction`, `function_declarations`): every member name is read
 * camelCased, except inside values that are the caller's own data (function arguments and
 * responses, schemas, labels). A token count may wrap its request in `generateContentRequest`,
 * whose `model` the path already names.
 */

/** Members whose value is the caller's data, never renamed. */
const OPAQUE: ReadonlySet<string> = new Set(['args', 'response', 'parameters', 'parametersJsonSchema', 'responseSchema', 'responseJsonSchema', 'labels']);

const camel = (name: string): string => name.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());

function camelCased(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelCased);
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [name, inner] of Object.entries(value)) {
    const key = camel(name);
    const read = OPAQUE.has(key) ? inner : camelCased(inner);
    // Both spellings of one object (a snake_case body whose output limit was clamped in place): merged.
    const earlier = out[key];
    out[key] = isObject(earlier) && isObject(read) ? { ...earlier, ...read } : read;
  }
  return out;
}

/** The read body, kept on the parsed body it came from: a body rewritten since (an output limit clamped) is read again. */
const READ = Symbol('ingress-gemini.body');
type WithRead = JsonObject & { [READ]?: { of: JsonObject; body: JsonObject } };

function readBody(raw: JsonObject, counting: boolean): JsonObject {
  const body = camelCased(raw) as JsonObject;
  const wrapped = counting ? body['generateContentRequest'] : undefined;
  if (!isObject(wrapped)) return body;
  const { model: _model, ...request } = wrapped;
  return request;
}

/** The call's body with its member names camelCased (once per parsed body). */
export function geminiBody(call: Call): JsonObject {
  const raw = call.body as WithRead;
  const memo = raw[READ];
  if (memo?.of === raw) return memo.body;
  const body = readBody(raw, call.endpoint.operation === 'count_tokens');
  raw[READ] = { of: raw, body };
  return body;
}

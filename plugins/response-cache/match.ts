import { createHash } from 'node:crypto';
import { invalidRequest, type CallWith, type JsonObject } from '../../src/plugin-api.js';

/** The request header that turns the cache on (or, with 0, off) for one request: seconds to keep its answer. */
export const TTL_HEADER = 'x-gateway-cache-ttl';
/** The answer header: `hit` (given again from the cache) or `miss` (the upstream answered; kept if it could be). */
export const RESULT_HEADER = 'x-gateway-cache';
/** The longest a cached answer may be kept: one day (the admin API's bound on a key's `cache_ttl_s` too). */
export const MAX_TTL_S = 86_400;

/**
 * Members of a request body that identify the request, its caller or its conversation rather than
 * change the answer, per endpoint: two requests that differ only in them share a cached answer.
 * `model` is left out everywhere: the canonical model stands in its place (aliases share).
 */
const IDENTIFIERS: Readonly<Record<string, readonly string[]>> = {
  'chat.completions': ['model', 'user', 'metadata', 'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention'],
  completions: ['model', 'user'],
  embeddings: ['model', 'user'],
  responses: ['model', 'user', 'metadata', 'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention', 'client_metadata'],
  messages: ['model', 'metadata'],
};
const ONLY_MODEL: readonly string[] = ['model'];

/** The endpoints whose answers are cached: those that ask a model for an answer or embeddings (never a token count). */
export const cachesOperation = (operation: string | null): boolean => operation === 'generate' || operation === 'embed';

/**
 * The seconds to keep this call's answer, or 0 for no caching: the request header when sent (0
 * turns the cache off for the request), else the key's `cache_ttl_s`. A malformed header is a 400
 * in the caller's envelope.
 */
export function ttlOf(call: CallWith<'key'>): number {
  const sent = call.callerHeaders[TTL_HEADER];
  if (sent === undefined) return call.key.cacheTtlS ?? 0;
  const text = Array.isArray(sent) ? '' : sent.trim();
  if (!/^\d{1,6}$/.test(text) || Number(text) > MAX_TTL_S) {
    throw invalidRequest(`The ${TTL_HEADER} header must be a whole number of seconds from 0 (no caching) to ${MAX_TTL_S}.`, TTL_HEADER);
  }
  return Number(text);
}

/** JSON with every object's members in code-point order, so that member order does not change the match. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const members = Object.keys(value as JsonObject)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson((value as JsonObject)[name])}`);
    return `{${members.join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * What a cached answer is found by, within its key: the SHA-256 of the endpoint, the canonical
 * model, whether a stream was asked for (a stream's events and a whole body are different
 * answers), the `anthropic-beta` header (it changes what the alpha vendor does) and the body less
 * its identifiers, in canonical JSON.
 */
export function requestHash(call: CallWith<'model'>): string {
  const left = new Set(IDENTIFIERS[call.endpoint.name] ?? ONLY_MODEL);
  const body: JsonObject = {};
  for (const [name, value] of Object.entries(call.body)) if (!left.has(name)) body[name] = value;
  const beta = call.callerHeaders['anthropic-beta'] ?? null;
  const parts = [call.endpoint.name, call.model.id, call.stream, beta, body];
  return createHash('sha256').update(canonicalJson(parts)).digest('hex');
}

import type { JsonObject } from '../chain/call.js';
import { invalidRequest, type GatewayError } from '../http/errors.js';
import { isObject } from './sequence.js';

/**
 * Every chat-completions parameter the gateway knows (docs/formats/chat.md has a row for each),
 * and the refusals of what a translated request cannot carry. Gamma is sent the caller's body
 * itself, so there every parameter is passed through and the upstream judges; alpha and beta
 * get a request written from the neutral one, so a parameter it does not carry would be dropped
 * unseen: it is refused by name instead, unless it is a hint that changes no output.
 */

/** Read into the neutral request; each family maps them (or refuses what it cannot map). */
const READ = [
  'model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'n', 'stop', 'seed',
  'presence_penalty', 'frequency_penalty', 'logprobs', 'top_logprobs', 'user', 'safety_identifier', 'tools', 'tool_choice',
  'parallel_tool_calls', 'response_format', 'reasoning_effort',
];

/** Hints that change no output (storage, caching, tiers, latency): accepted, with no effect on a translated request. */
const NO_EFFECT = ['service_tier', 'store', 'metadata', 'prediction', 'prompt_cache_key', 'prompt_cache_retention'];

/** Taken only at the value that asks nothing: anything else would change the output, and no translator maps it. */
const NEUTRAL_ONLY: Readonly<Record<string, { neutral: (value: unknown) => boolean; why: string }>> = {
  logit_bias: { neutral: (value) => isObject(value) && Object.keys(value).length === 0, why: 'token biases are not available for this model' },
  modalities: { neutral: (value) => Array.isArray(value) && value.every((modality) => modality === 'text'), why: 'this model answers in text only' },
  audio: { neutral: () => false, why: 'this model answers in text only' },
  web_search_options: { neutral: () => false, why: 'the gateway runs no web search for this model' },
  verbosity: { neutral: (value) => value === 'medium', why: 'no verbosity other than the default (medium) is mapped for this model' },
  functions: { neutral: () => false, why: 'the deprecated functions are not translated for this model; use tools' },
  function_call: { neutral: () => false, why: 'the deprecated function_call is not translated for this model; use tool_choice' },
};

export const CHAT_PARAMETERS: readonly string[] = [...READ, ...NO_EFFECT, ...Object.keys(NEUTRAL_ONLY)];

/** Refuses (400 naming it) the first parameter of a chat body to be translated that the translation would drop; null values ask nothing. */
export function refuseUntranslatable(body: JsonObject): void {
  for (const [param, value] of Object.entries(body)) {
    if (value === null || READ.includes(param) || NO_EFFECT.includes(param)) continue;
    const rule = NEUTRAL_ONLY[param];
    if (!rule) throw unknownParameter(param, 'a parameter');
    if (!rule.neutral(value)) throw invalidRequest(`${param} is not supported here: ${rule.why}.`, param);
  }
  if (typeof body['top_logprobs'] === 'number' && body['top_logprobs'] > 0 && body['logprobs'] !== true) {
    throw invalidRequest('top_logprobs needs logprobs: true.', 'top_logprobs');
  }
}

/** The 400 of a field a translation would drop unseen; `what` says what kind of parameter it is not. */
const unknownParameter = (field: string, what: string): GatewayError =>
  invalidRequest(`${field} is not ${what} the gateway knows for this model; it is refused rather than dropped.`, field);

/**
 * For another body a vendor translation reads (legacy completions, embeddings): refuses the
 * first field not among `known`, as refuseUntranslatable does for chat. Null values ask nothing.
 */
export function refuseUnknownFields(body: JsonObject, known: ReadonlySet<string>, what: string): void {
  for (const [field, value] of Object.entries(body)) {
    if (value !== null && !known.has(field)) throw unknownParameter(field, what);
  }
}

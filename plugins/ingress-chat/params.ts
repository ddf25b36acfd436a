import { invalidRequest, type JsonObject } from '../../src/plugin-api.js';
import { isObject } from '../../src/toolkit/json.js';
import { unknownParameter } from '../../src/toolkit/reference-format.js';

/**
 * Every chat-completions parameter the gateway knows (docs/formats/chat.md has a row for each),
 * and the refusals of what a translated request cannot carry. Gamma is sent the caller's body
 * itself, so there every parameter is passed through and the upstream judges; alpha and beta
 * get a request written from the neutral one, so a parameter it does not carry would be dropped
 * unseen: it is refused by name instead, unless it is a hint that changes no output.
 */

/** Read into the neutral request; each family maps them (or refuses what it cannot map). */
const READ = [
  'model',
  'messages',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'temperature',
  'top_p',
  'n',
  'stop',
  'seed',
  'presence_penalty',
  'frequency_penalty',
  'logprobs',
  'top_logprobs',
  'user',
  'safety_identifier',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
  'response_format',
  'reasoning_effort',
  // Automatic caching for alpha (read.ts); no effect for beta.
  'prompt_cache_key',
  'prompt_cache_retention',
];

/** Hints that change no output (storage, tiers, latency): accepted, with no effect on a translated request. */
const NO_EFFECT = ['service_tier', 'store', 'metadata', 'prediction'];

/**
 * Taken only at the value that asks nothing: anything else would change the output, and no
 * translator maps it. With `adjusted`, another value is honoured only approximately and
 * announced with that action (docs/parameters.md): the model answers without a web search, or
 * at its own verbosity. The others have no honest approximation and are refused.
 */
const NEUTRAL_ONLY: Readonly<Record<string, { neutral: (value: unknown) => boolean; why: string; adjusted?: string }>> = {
  logit_bias: { neutral: (value) => isObject(value) && Object.keys(value).length === 0, why: 'token biases are not available for this model' },
  modalities: { neutral: (value) => Array.isArray(value) && value.every((modality) => modality === 'text'), why: 'this model answers in text only' },
  audio: { neutral: () => false, why: 'this model answers in text only' },
  web_search_options: { neutral: () => false, why: 'the gateway runs no web search for this model', adjusted: 'omitted:web_search' },
  verbosity: {
    neutral: (value) => value === 'medium',
    why: 'no verbosity other than the default (medium) is mapped for this model',
    adjusted: 'default:medium',
  },
  functions: { neutral: () => false, why: 'the deprecated functions are not translated for this model; use tools' },
  function_call: { neutral: () => false, why: 'the deprecated function_call is not translated for this model; use tool_choice' },
};

export const CHAT_PARAMETERS: readonly string[] = [...READ, ...NO_EFFECT, ...Object.keys(NEUTRAL_ONLY)];

/** A parameter honoured only approximately, announced (Call.adjust: refused under `parameters: strict`). */
export type Adjust = (param: string, action: string, refusal: string) => void;

/** Where no call can announce an approximation (a reading outside one): it is refused, as under `parameters: strict`. */
export const refuseApproximation: Adjust = (param, _action, refusal) => {
  throw invalidRequest(refusal, param);
};

/**
 * Refuses (400 naming it) the first parameter of a chat body to be translated that the
 * translation would drop, and announces each one it approximates; null values ask nothing.
 */
export function refuseUntranslatable(body: JsonObject, adjust: Adjust): void {
  for (const [param, value] of Object.entries(body)) {
    if (value === null || READ.includes(param) || NO_EFFECT.includes(param)) continue;
    const rule = NEUTRAL_ONLY[param];
    if (!rule) throw unknownParameter(param, 'a parameter');
    if (rule.neutral(value)) continue;
    const refusal = `${param} is not supported here: ${rule.why}.`;
    if (!rule.adjusted) throw invalidRequest(refusal, param);
    adjust(param, rule.adjusted, refusal);
  }
  if (typeof body['top_logprobs'] === 'number' && body['top_logprobs'] > 0 && body['logprobs'] !== true) {
    throw invalidRequest('top_logprobs needs logprobs: true.', 'top_logprobs');
  }
}

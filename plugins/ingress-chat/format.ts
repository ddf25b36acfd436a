import type { Call, JsonObject } from '../../src/plugin-api.js';
import { firstPart, modelMemberProblem, positiveInt, type CallOutline, type IngressFormat } from '../../src/toolkit/ingress.js';
import { stateOpener } from '../../src/toolkit/neutral.js';
import { sseErrorFrame } from '../../src/toolkit/sse.js';
import { chatBodyFromLegacy } from './legacy.js';
import { ChatOutput } from './output.js';
import { parseChatRequest } from './read.js';
import { checkRequestBody } from './schema.js';

/** The reference chat format as an ingress: chat completions, legacy completions, embeddings. */

/**
 * Prompts of a legacy completions body, each given `n` (or `best_of`) completions upstream: an
 * array of strings or of token arrays is one prompt per item; a string or one token array is one.
 */
function promptCount(prompt: unknown): number {
  return Array.isArray(prompt) && !prompt.every((item) => typeof item === 'number') ? prompt.length : 1;
}

/** The caller's limit on output tokens and the parameter that set it: `max_completion_tokens` wins over `max_tokens`. */
function outputLimit(body: JsonObject): Pick<CallOutline, 'maxOutputTokens' | 'maxOutputParam'> {
  for (const param of ['max_completion_tokens', 'max_tokens']) {
    const tokens = positiveInt(body[param]);
    if (tokens !== undefined) return { maxOutputTokens: tokens, maxOutputParam: param };
  }
  return { maxOutputTokens: null, maxOutputParam: null };
}

function outline(call: Call): CallOutline {
  const body = call.body;
  if (call.endpoint.name === 'embeddings') {
    return {
      model: body['model'] as string,
      stream: false,
      includeUsage: false,
      maxOutputTokens: 0,
      maxOutputParam: null,
      choices: 1,
      asks: { tools: null, json: null, image: null },
    };
  }
  const stream = body['stream'] === true;
  const format = (body['response_format'] as JsonObject | undefined)?.['type'];
  const tools = body['tools'];
  return {
    model: body['model'] as string,
    stream,
    includeUsage: stream && (body['stream_options'] as { include_usage?: unknown } | null | undefined)?.include_usage === true,
    ...outputLimit(body),
    choices: Math.max(positiveInt(body['n']) ?? 1, positiveInt(body['best_of']) ?? 1) * promptCount(body['prompt']),
    asks: {
      tools: Array.isArray(tools) && tools.length ? 'tools' : null,
      json: format === 'json_object' || format === 'json_schema' ? 'response_format' : null,
      image: firstPart(body['messages'], 'messages', 'image_url'),
    },
  };
}

export const chatFormat: IngressFormat = {
  name: 'chat',
  wire: 'openai-chat',
  rateLimitHeaders: 'openai',
  errors: { body: (error) => JSON.stringify(error.toEnvelope()), frame: sseErrorFrame },
  check: (call) => modelMemberProblem(call.body) ?? checkRequestBody(call.endpoint.name, call.body),
  outline,
  read: (call) =>
    parseChatRequest(
      call.endpoint.name === 'completions' ? chatBodyFromLegacy(call.body) : call.body,
      (param, action, refusal) => call.adjust(param, action, refusal),
      stateOpener(call),
    ),
  output: (call) => new ChatOutput(call),
};

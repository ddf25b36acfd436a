import {
  ChatOutput,
  chatBodyFromLegacy,
  checkRequestBody,
  firstPart,
  parseChatRequest,
  positiveInt,
  sseErrorFrame,
  type Call,
  type CallOutline,
  type IngressFormat,
  type JsonObject,
} from '../../src/plugin-api.js';

/** The reference chat format as an ingress: chat completions, legacy completions, embeddings. */

function outline(call: Call): CallOutline {
  const body = call.body;
  if (call.endpoint.name === 'embeddings') {
    return { stream: false, includeUsage: false, maxOutputTokens: 0, choices: 1, asks: { tools: null, json: null, image: null } };
  }
  const stream = body['stream'] === true;
  const format = (body['response_format'] as JsonObject | undefined)?.['type'];
  const tools = body['tools'];
  return {
    stream,
    includeUsage: stream && (body['stream_options'] as { include_usage?: unknown } | null | undefined)?.include_usage === true,
    maxOutputTokens: positiveInt(body['max_completion_tokens']) ?? positiveInt(body['max_tokens']) ?? null,
    choices: Math.max(positiveInt(body['n']) ?? 1, positiveInt(body['best_of']) ?? 1),
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
  errors: { body: (error) => JSON.stringify(error.toEnvelope()), frame: sseErrorFrame },
  check: (call) => checkRequestBody(call.endpoint.name, call.body),
  outline,
  read: (call) => parseChatRequest(call.endpoint.name === 'completions' ? chatBodyFromLegacy(call.body) : call.body),
  output: (call) => new ChatOutput(call),
};

import {
  ChatOutput,
  chatBodyFromLegacy,
  checkRequestBody,
  parseChatRequest,
  sseErrorFrame,
  type Call,
  type CallOutline,
  type IngressFormat,
  type JsonObject,
} from '../../src/plugin-api.js';

/** The reference chat format as an ingress: chat completions, legacy completions, embeddings. */

const positiveInt = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;

/** The first image part of the messages, as `messages[i].content[j]`. */
function firstImage(messages: unknown): string | null {
  if (!Array.isArray(messages)) return null;
  for (const [i, message] of messages.entries()) {
    const content = (message as JsonObject | null)?.['content'];
    if (!Array.isArray(content)) continue;
    const j = content.findIndex((part) => (part as JsonObject | null)?.['type'] === 'image_url');
    if (j >= 0) return `messages[${i}].content[${j}]`;
  }
  return null;
}

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
      image: firstImage(body['messages']),
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

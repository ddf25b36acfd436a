import { definePlugin, invalidRequest, type Call, type Capability, type JsonObject } from '../../src/plugin-api.js';

/**
 * `capabilities`: refuses, before any upstream, what the model's catalogue entry does not
 * offer — tools, images (vision), JSON mode, embeddings — with a 400 naming the field at
 * fault (`tools`, `messages[0].content[1]`, `response_format`, `model`).
 */

const lacks = (call: Call, capability: Capability): boolean => !call.model?.capabilities.has(capability);

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

function checkChat(call: Call): void {
  const body = call.body;
  const model = call.model?.id ?? '';
  const tools = body['tools'];
  if (Array.isArray(tools) && tools.length && lacks(call, 'tools')) throw invalidRequest(`The model '${model}' does not support tools.`, 'tools');
  const format = (body['response_format'] as JsonObject | undefined)?.['type'];
  if ((format === 'json_object' || format === 'json_schema') && lacks(call, 'json')) {
    throw invalidRequest(`The model '${model}' does not support JSON mode.`, 'response_format');
  }
  const image = lacks(call, 'vision') ? firstImage(body['messages']) : null;
  if (image) throw invalidRequest(`The model '${model}' does not accept images.`, image);
}

export default definePlugin({
  name: 'capabilities',
  after: ['model-normalise'],
  setup({ catalogue }) {
    return {
      onRequest(call) {
        const model = call.model;
        if (!model) return;
        if (call.endpoint.name === 'chat.completions') checkChat(call);
        if (call.endpoint.name === 'embeddings' && (lacks(call, 'embeddings') || !catalogue.family(model.family).embeddingModel)) {
          throw invalidRequest(`The model '${model.id}' offers no embeddings: the ${model.family} family has no embedding model configured.`, 'model');
        }
      },
    };
  },
});

import { definePlugin, invalidRequest, type Call, type Capability, type ModelEntry } from '../../src/plugin-api.js';

/**
 * `capabilities`: refuses, before any upstream, what the model's catalogue entry does not
 * offer — tools, images (vision), JSON mode, embeddings, more output tokens than its
 * `max_output_tokens` — with a 400 naming the field at fault (`tools`, `messages[0].content[1]`,
 * `response_format`, `model`, `max_tokens`). It reads the call's outline, so one check holds for
 * every format, translated or passed through.
 */

const lacks = (call: Call, capability: Capability): boolean => !call.model?.capabilities.has(capability);

/** What the request asks for that the model's catalogue entry does not offer: a 400 naming the field. */
function checkAsks(call: Call): void {
  const { asks } = call.outline;
  const model = call.model?.id ?? '';
  if (asks.tools && lacks(call, 'tools')) throw invalidRequest(`The model '${model}' does not support tools.`, asks.tools);
  if (asks.json && lacks(call, 'json')) throw invalidRequest(`The model '${model}' does not support JSON mode.`, asks.json);
  if (asks.image && lacks(call, 'vision')) throw invalidRequest(`The model '${model}' does not accept images.`, asks.image);
}

/**
 * A limit on output tokens (per completion) above the model's maximum: a 400 naming the
 * parameter, as the vendors answer it. Never sent on: the ceiling reserves for no more than the
 * limit (docs/money.md), so the limit must be one the model keeps.
 */
function checkOutputLimit(call: Call, model: ModelEntry): void {
  const { maxOutputTokens: limit, maxOutputParam: param } = call.outline;
  if (limit !== null && limit > model.maxOutputTokens) {
    throw invalidRequest(`${param} is ${limit}; ${model.id} produces at most ${model.maxOutputTokens} output tokens.`, param);
  }
}

export default definePlugin({
  name: 'capabilities',
  after: ['model-normalise'],
  setup({ catalogue }) {
    return {
      onRequest(call) {
        const model = call.model;
        if (!model) return;
        checkAsks(call);
        checkOutputLimit(call, model);
        if (call.endpoint.operation === 'embed' && (lacks(call, 'embeddings') || !catalogue.family(model.family).embeddingModel)) {
          throw invalidRequest(`The model '${model.id}' offers no embeddings: the ${model.family} family has no embedding model configured.`, 'model');
        }
      },
    };
  },
});

import { definePlugin, invalidRequest, type CallWith, type Capability, type JsonObject } from '../../src/plugin-api.js';

/**
 * `capabilities`: refuses, before any upstream, what the model's catalogue entry does not
 * offer — tools, images (vision), JSON mode, embeddings — with a 400 naming the field at fault
 * (`tools`, `messages[0].content[1]`, `response_format`, `model`), and clamps a limit on output
 * tokens above its `max_output_tokens` to it (an adjustment, docs/parameters.md). It reads the
 * call's outline, so one check holds for every format, translated or passed through.
 */

/** The call as this plugin sees it: its model resolved. */
type ModelCall = CallWith<'model'>;

const lacks = (call: ModelCall, capability: Capability): boolean => !call.model.capabilities.has(capability);

/** What the request asks for that the model's catalogue entry does not offer: a 400 naming the field. */
function checkAsks(call: ModelCall): void {
  const { asks } = call.outline;
  const model = call.model.id;
  if (asks.tools && lacks(call, 'tools')) throw invalidRequest(`The model '${model}' does not support tools.`, asks.tools);
  if (asks.json && lacks(call, 'json')) throw invalidRequest(`The model '${model}' does not support JSON mode.`, asks.json);
  if (asks.image && lacks(call, 'vision')) throw invalidRequest(`The model '${model}' does not accept images.`, asks.image);
}

/**
 * A limit on output tokens (per completion) above the model's maximum is clamped to it and
 * announced (`max_tokens=clamped:8192`): the model cannot write more anyway, and clients such as
 * Claude Code send one limit for every model. Under `parameters: strict` it is the 400 the vendors
 * answer. The clamped number replaces the caller's in the outline (the ceiling reserves for it,
 * docs/money.md) and in the body (Call.rewriteBody; a dotted parameter names a nested member), so that every format's reading and every
 * passthrough sends what was reserved for.
 */
function clampOutputLimit(call: ModelCall): void {
  const model = call.model;
  const outline = call.outline;
  const { maxOutputTokens: limit, maxOutputParam: param } = outline;
  if (limit === null || param === null || limit <= model.maxOutputTokens) return;
  const max = model.maxOutputTokens;
  call.adjust(param, `clamped:${max}`, `${param} is ${limit}; ${model.id} produces at most ${max} output tokens.`);
  outline.maxOutputTokens = max;
  call.rewriteBody(withMember(call.body, param.split('.'), max));
}

/** A copy of `body` with the member at `path` (`max_tokens`, or nested: `generationConfig.maxOutputTokens`) set to `value`. */
function withMember(body: JsonObject, path: readonly string[], value: unknown): JsonObject {
  const [name, ...rest] = path as [string, ...string[]];
  const inner = body[name];
  return { ...body, [name]: rest.length ? withMember(inner !== null && typeof inner === 'object' ? (inner as JsonObject) : {}, rest, value) : value };
}

export default definePlugin({
  name: 'capabilities',
  needs: ['model'],
  setup({ catalogue }) {
    return {
      onRequest(call) {
        const model = call.model;
        checkAsks(call);
        clampOutputLimit(call);
        if (call.endpoint.operation === 'embed' && (lacks(call, 'embeddings') || !catalogue.family(model.family).embeddingModel)) {
          throw invalidRequest(`The model '${model.id}' offers no embeddings: the ${model.family} family has no embedding model configured.`, 'model');
        }
      },
    };
  },
});

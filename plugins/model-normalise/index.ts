import { definePlugin, modelNotFound } from '../../src/plugin-api.js';

/**
 * `model-normalise`: resolves the model the caller named (the body's format read it: `call.outline`)
 * to its canonical catalogue entry, by ID or alias, case-insensitive and trimmed (404
 * model_not_found), and provides it to the call. Every later plugin sees only the canonical entry.
 */
export default definePlugin({
  name: 'model-normalise',
  provides: ['model'],
  setup({ catalogue }) {
    return {
      onRequest(call) {
        if (!call.endpoint.upstream) return;
        const requested = call.outline.model;
        const model = catalogue.resolve(requested);
        if (!model) throw modelNotFound(requested);
        call.resolveModel(model);
      },
    };
  },
});

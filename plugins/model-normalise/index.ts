import { definePlugin, invalidRequest, modelNotFound } from '../../src/plugin-api.js';

/**
 * `model-normalise`: checks the request body (400 naming the field: first `model`, then the
 * rest of the endpoint format's schema), resolves the model ID or alias to its canonical catalogue
 * entry (case-insensitive, trimmed; 404 model_not_found), and reads the stream flags. Every
 * later plugin sees only the canonical ID.
 */
export default definePlugin({
  name: 'model-normalise',
  setup({ catalogue }) {
    return {
      onRequest(call) {
        if (!call.endpoint.upstream) return;
        const body = call.body;
        const requested = body['model'];
        if (typeof requested !== 'string' || requested.trim() === '') {
          throw invalidRequest(
            requested === undefined ? 'model is required.' : 'model must be a non-empty string naming a model of GET /v1/models.',
            'model',
          );
        }
        const problem = call.endpoint.format.check(call);
        if (problem) throw invalidRequest(problem.message, problem.param);
        const model = catalogue.resolve(requested);
        if (!model) {
          throw modelNotFound(requested);
        }
        call.requestedModel = requested;
        call.model = model;
        call.stream = call.outline.stream;
        call.includeUsage = call.outline.includeUsage;
      },
    };
  },
});

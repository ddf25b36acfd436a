import { definePlugin, GatewayError } from '../../src/plugin-api.js';

/** `scope`: a key's model allowlist (403 model_not_allowed), checked on the canonical ID. */
export default definePlugin({
  name: 'scope',
  needs: ['key', 'model'],
  setup() {
    return {
      onRequest(call) {
        const allowed = call.key.models;
        const model = call.model;
        if (!allowed || allowed.includes(model.id)) return;
        throw new GatewayError(403, `This API key is not allowed to use the model '${model.id}'.`, { param: 'model' });
      },
    };
  },
});

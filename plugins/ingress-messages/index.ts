import { definePlugin, type Endpoint } from '../../src/plugin-api.js';
import { messagesFormat } from './format.js';
import { keepAffinity } from '../../src/toolkit/ingress.js';
import { mountMessagesModels } from './models.js';

/** The Messages format's endpoints (docs/formats/messages.md); the key may also come as `x-api-key`. */
export const MESSAGES_ENDPOINTS: readonly Endpoint[] = [
  { name: 'messages', path: '/v1/messages', method: 'POST', upstream: true, operation: 'generate', keyHeader: 'x-api-key', format: messagesFormat },
  {
    name: 'messages.count_tokens',
    path: '/v1/messages/count_tokens',
    method: 'POST',
    upstream: true,
    operation: 'count_tokens',
    keyHeader: 'x-api-key',
    format: messagesFormat,
  },
];

/** `ingress-messages`: the Messages format for every catalogue model — messages, token counts, and the model list in its shape. */
export default definePlugin({
  name: 'ingress-messages',
  setup({ catalogue }) {
    return {
      endpoints: MESSAGES_ENDPOINTS,
      routes: (router) => mountMessagesModels(router, catalogue),
      // Claude Code names its session in a header: its conversation keeps its deployment.
      onRequest(call) {
        if (call.endpoint.format === messagesFormat) keepAffinity(call, call.callerHeaders['x-claude-code-session-id']);
      },
    };
  },
});

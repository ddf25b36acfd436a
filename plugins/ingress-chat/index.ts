import { definePlugin, type Endpoint } from '../../src/plugin-api.js';
import { keepAffinity } from '../../src/toolkit/ingress.js';
import { chatFormat } from './format.js';

/** The reference chat format's endpoints (docs/api-contract.md#endpoints). */
export const CHAT_ENDPOINTS: readonly Endpoint[] = [
  { name: 'chat.completions', path: '/v1/chat/completions', method: 'POST', upstream: true, operation: 'generate', format: chatFormat },
  { name: 'completions', path: '/v1/completions', method: 'POST', upstream: true, operation: 'generate', format: chatFormat },
  { name: 'embeddings', path: '/v1/embeddings', method: 'POST', upstream: true, operation: 'embed', format: chatFormat },
  // Answered by the ledger plugin's responder; its errors are in this format's envelope.
  { name: 'usage', path: '/v1/usage', method: 'GET', upstream: false, operation: null, format: chatFormat },
];

/** `ingress-chat`: the reference chat format — chat and legacy completions, embeddings, the usage report. */
export default definePlugin({
  name: 'ingress-chat',
  setup() {
    return {
      endpoints: CHAT_ENDPOINTS,
      onRequest(call) {
        if (call.endpoint.format === chatFormat && call.endpoint.upstream) keepAffinity(call, call.body['prompt_cache_key']);
      },
    };
  },
});

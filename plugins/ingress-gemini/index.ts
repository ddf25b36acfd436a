import { definePlugin, type Endpoint } from '../../src/plugin-api.js';
import { geminiFormat } from './format.js';
import { mountGeminiModels } from './models.js';

/** How the Gemini format takes the key besides `Authorization: Bearer`: js-genai's header, or the query parameter. */
const KEY = { keyHeader: 'x-goog-api-key', keyQuery: 'key' } as const;

/** The Gemini format's endpoints (docs/formats/gemini.md); the model is the path's `{model}`. */
export const GEMINI_ENDPOINTS: readonly Endpoint[] = [
  {
    name: 'gemini.generate_content',
    path: '/v1beta/models/{model}:generateContent',
    method: 'POST',
    upstream: true,
    operation: 'generate',
    format: geminiFormat,
    ...KEY,
  },
  {
    name: 'gemini.stream_generate_content',
    path: '/v1beta/models/{model}:streamGenerateContent',
    method: 'POST',
    upstream: true,
    operation: 'generate',
    format: geminiFormat,
    ...KEY,
  },
  {
    name: 'gemini.count_tokens',
    path: '/v1beta/models/{model}:countTokens',
    method: 'POST',
    upstream: true,
    operation: 'count_tokens',
    format: geminiFormat,
    ...KEY,
  },
];

/** `ingress-gemini`: the Gemini format for every catalogue model — generation, its stream, token counts, and the model list in its shape. */
export default definePlugin({
  name: 'ingress-gemini',
  setup({ catalogue }) {
    return { endpoints: GEMINI_ENDPOINTS, routes: (router) => mountGeminiModels(router, catalogue) };
  },
});

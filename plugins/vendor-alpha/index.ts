import { definePlugin } from '../../src/plugin-api.js';
import { AlphaTranslator } from './translator.js';

const FAMILY = 'alpha';

/** `vendor-alpha`: the alpha family, whose upstream speaks an Anthropic-Messages-style API. */
export default definePlugin({
  name: 'vendor-alpha',
  after: ['model-normalise'],
  vendor: {
    family: FAMILY,
    defaultBaseUrl: 'https://api.anthropic.com',
    simulator: async () => (await import('./simulator.js')).createAlphaSimulator(),
  },
  setup({ upstreamCredential }) {
    const apiKey = upstreamCredential(FAMILY);
    return {
      translator: { family: FAMILY, create: (call) => new AlphaTranslator(call, apiKey) },
    };
  },
});

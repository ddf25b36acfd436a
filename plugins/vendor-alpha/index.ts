import { definePlugin } from '../../src/chain/plugin.js';
import { AlphaTranslator } from './translator.js';

/** `vendor-alpha`: the alpha family, whose upstream speaks an Anthropic-Messages-style API. */
export default definePlugin({
  name: 'vendor-alpha',
  after: ['model-normalise'],
  setup({ upstreamCredential }) {
    const apiKey = upstreamCredential('alpha');
    return {
      translator: { family: 'alpha', create: (call) => new AlphaTranslator(call, apiKey) },
    };
  },
});

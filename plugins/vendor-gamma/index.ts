import { definePlugin } from '../../src/chain/plugin.js';
import { GammaTranslator } from './translator.js';

/** `vendor-gamma`: the gamma family, whose upstream speaks the reference format. */
export default definePlugin({
  name: 'vendor-gamma',
  after: ['model-normalise'],
  setup({ catalogue, upstreamCredential }) {
    const apiKey = upstreamCredential('gamma');
    const embeddingModel = catalogue.families.gamma.embeddingModel;
    return {
      translator: { family: 'gamma', create: (call) => new GammaTranslator(call, apiKey, embeddingModel) },
    };
  },
});

import { definePlugin } from '../../src/plugin-api.js';
import { createGammaTranslator } from './translator.js';

const FAMILY = 'gamma';

/** `vendor-gamma`: the gamma family, whose upstream speaks the reference format. */
export default definePlugin({
  name: 'vendor-gamma',
  needs: ['model'],
  vendor: {
    family: FAMILY,
    defaultBaseUrl: 'https://api.openai.com',
    simulator: async () => (await import('./simulator.js')).createGammaSimulator(),
  },
  setup({ catalogue, upstreamCredential }) {
    const embeddingModel = catalogue.families.get(FAMILY)?.embeddingModel ?? null;
    return {
      translator: { family: FAMILY, create: (call) => createGammaTranslator(call, upstreamCredential(FAMILY, call.deployment), embeddingModel) },
    };
  },
});

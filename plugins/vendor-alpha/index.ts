import { definePlugin } from '../../src/plugin-api.js';
import { BetaFilter, PRICE_NEUTRAL_BETAS } from './betas.js';
import { AlphaPassthrough } from './passthrough.js';
import { AlphaTranslator } from './translator.js';

const FAMILY = 'alpha';

/** The wire format alpha's upstream speaks: callers of the same (the Messages ingress) are passed through. */
export const ALPHA_WIRE = 'anthropic-messages';

interface AlphaConfig {
  /** `anthropic-beta` value prefixes forwarded to the upstream (the list replaces the default; see betas.ts). */
  betas: { forward: string[] };
}

/** `vendor-alpha`: the alpha family, whose upstream speaks an Anthropic-Messages-style API. */
export default definePlugin({
  name: 'vendor-alpha',
  needs: ['model'],
  vendor: {
    family: FAMILY,
    defaultBaseUrl: 'https://api.anthropic.com',
    simulator: async () => (await import('./simulator.js')).createAlphaSimulator(),
  },
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      betas: {
        type: 'object',
        additionalProperties: false,
        default: {},
        properties: { forward: { type: 'array', items: { type: 'string', pattern: '^[a-z0-9-]+$' }, default: [...PRICE_NEUTRAL_BETAS] } },
      },
    },
  },
  setup({ upstreamCredential, log }, config: AlphaConfig) {
    const betas = new BetaFilter(config.betas.forward, log);
    return {
      translator: {
        family: FAMILY,
        create: (call) => {
          // The credential of the deployment this attempt goes to (chosen before the translator is made).
          const apiKey = upstreamCredential(FAMILY, call.deployment);
          return call.endpoint.format.wire === ALPHA_WIRE ? new AlphaPassthrough(call, { apiKey, betas }) : new AlphaTranslator(call, apiKey);
        },
      },
    };
  },
});

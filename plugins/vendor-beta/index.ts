import { readFileSync } from 'node:fs';
import { definePlugin, GuardedFetcher, policyAllowing } from '../../src/plugin-api.js';
import { ThoughtSignatures } from './thought-signatures.js';
import { BetaTranslator } from './translator.js';

interface BetaConfig {
  /**
   * Remote images are fetched by the gateway (beta takes only inline bytes) through the guarded
   * fetcher, which refuses non-public addresses. `allow_cidrs` opens ranges an operator trusts
   * (an internal image host); `ca_file` adds a PEM certificate authority to the trusted roots.
   */
  remote_images: { allow_cidrs: string[]; ca_file?: string };
}

const FAMILY = 'beta';

/** `vendor-beta`: the beta family, whose upstream speaks a Gemini-style `generateContent` API. */
export default definePlugin<BetaConfig>({
  name: 'vendor-beta',
  after: ['model-normalise'],
  vendor: {
    family: FAMILY,
    defaultBaseUrl: 'https://generativelanguage.googleapis.com',
    simulator: async () => (await import('./simulator.js')).createBetaSimulator(),
  },
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      remote_images: {
        type: 'object',
        additionalProperties: false,
        default: {},
        properties: {
          allow_cidrs: { type: 'array', default: [], items: { type: 'string', pattern: '^[0-9a-fA-F:.]+(/\\d{1,3})?$' } },
          ca_file: { type: 'string', minLength: 1 },
        },
      },
    },
  },
  setup({ catalogue, upstreamCredential }, config) {
    const images = config.remote_images;
    const services = {
      apiKey: upstreamCredential(FAMILY),
      embeddingModel: catalogue.families.get(FAMILY)?.embeddingModel ?? null,
      fetcher: new GuardedFetcher({
        policy: policyAllowing(images.allow_cidrs),
        ...(images.ca_file ? { ca: readFileSync(images.ca_file) } : {}),
      }),
      signatures: new ThoughtSignatures(),
    };
    return {
      translator: { family: FAMILY, create: (call) => new BetaTranslator(call, services) },
    };
  },
});

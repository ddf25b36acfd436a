import { readFileSync } from 'node:fs';
import { Gauge } from 'prom-client';
import { definePlugin } from '../../src/plugin-api.js';
import { ByteBudget, GuardedFetcher, IMAGE_LIMITS, policyAllowing } from '../../src/toolkit/remote-images.js';
import { releaseImages } from './held-images.js';
import { SIGNATURE_STATE } from './store/state.js';
import { historySignatureIds } from './request.js';
import { ThoughtSignatures } from './thought-signatures.js';
import { BetaTranslator } from './translator.js';

interface BetaConfig {
  /**
   * Remote images are fetched by the gateway (beta takes only inline bytes) through the guarded
   * fetcher, which refuses non-public addresses. `allow_cidrs` opens ranges an operator trusts
   * (an internal image host); `ca_file` adds a PEM certificate authority to the trusted roots.
   * `max_bytes_held` bounds the image bytes all calls together hold at once (reserved before
   * reading: the declared length, else the per-image maximum; held until the call completes);
   * a call that finds no room within `budget_wait_ms` is answered 503. It is at least what one
   * request may hold, so a 503 is always retryable.
   */
  remote_images: { allow_cidrs: string[]; ca_file?: string; max_bytes_held: number; budget_wait_ms: number };
}

const FAMILY = 'beta';
/** The most remote image bytes one request may hold: 8 images of 10 MiB (80 MiB). */
const REQUEST_IMAGE_BYTES = IMAGE_LIMITS.perRequest * IMAGE_LIMITS.maxBytes;
/** Expired thought signatures are dropped this often. */
const PRUNE_EVERY_MS = 3_600_000;

/** `vendor-beta`: the beta family, whose upstream speaks a Gemini-style `generateContent` API. */
export default definePlugin({
  name: 'vendor-beta',
  needs: ['model'],
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
          // At least one request's worth: the most images a request may have, each of the largest
          // size, so that a request the per-request limits allow is always admitted on an idle
          // gateway (a 503 then only ever means calls together hold the room: worth a retry).
          max_bytes_held: { type: 'integer', minimum: REQUEST_IMAGE_BYTES, default: REQUEST_IMAGE_BYTES },
          budget_wait_ms: { type: 'integer', minimum: 0, maximum: 60_000, default: 2000 },
        },
      },
    },
  },
  async setup({ catalogue, upstreamCredential, metrics, store, clock, log }, config: BetaConfig) {
    const images = config.remote_images;
    const budget = new ByteBudget(images.max_bytes_held, images.budget_wait_ms);
    new Gauge({
      name: 'gateway_image_bytes_held',
      help: 'Bytes of remote images (fetched for the beta family) held now, against remote_images.max_bytes_held.',
      registers: [metrics],
      collect() {
        this.set(budget.held);
      },
    });
    const services = {
      embeddingModel: catalogue.families.get(FAMILY)?.embeddingModel ?? null,
      fetcher: new GuardedFetcher({
        policy: policyAllowing(images.allow_cidrs),
        budget,
        ...(images.ca_file ? { ca: readFileSync(images.ca_file) } : {}),
      }),
      signatures: new ThoughtSignatures(await store.extend(SIGNATURE_STATE), clock, log),
    };
    const pruner = setInterval(() => void services.signatures.prune(), PRUNE_EVERY_MS);
    pruner.unref();
    return {
      // The credential of the deployment this attempt goes to (chosen before the translator is made).
      translator: { family: 'beta', create: (call) => new BetaTranslator(call, { ...services, apiKey: upstreamCredential(FAMILY, call.deployment) }) },
      // A beta call continuing a conversation goes where its kept signatures were issued (read once, here, for every attempt).
      async onRequest(call) {
        if (call.model.family !== FAMILY || (call.endpoint.operation !== 'generate' && call.endpoint.operation !== 'count_tokens')) return;
        await services.signatures.pin(call, historySignatureIds(call.request));
      },
      // Before the last byte: a follow-up call, on any instance, finds the reply's signatures.
      async onComplete(call) {
        releaseImages(call);
        await services.signatures.settled(call);
      },
      close() {
        clearInterval(pruner);
      },
    };
  },
});

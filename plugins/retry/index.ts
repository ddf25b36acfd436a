import { definePlugin, PluginConfigError, type Catalogue, type ModelEntry } from '../../src/plugin-api.js';
import { createRetryPolicy, siblingFor, SPEC_CADENCE } from './policy.js';

/**
 * `retry`: the policy the pipeline consults after a failed upstream attempt, before any byte
 * reached the caller — the contract's cadence (docs/api-contract.md#retries-and-timeouts) for connection errors, timeouts, 502, 503 and 504,
 * a 429 only when its Retry-After fits the deadline, at most `retry.max` (GATEWAY_RETRY_MAX)
 * times — and the sibling fallback on 503 for the families the operator lists. With a fallback
 * configured, each call is told before admission which sibling may answer it
 * (`call.fallbackModel`), so that the ceiling reserves for the dearer of the two.
 */

interface RetryConfig {
  cadence: Array<{ delay_ms: number; jitter_ms: number }>;
  min_attempt_ms: number;
  /** family → { model: sibling }; a family not listed never falls back. */
  fallback: Record<string, Record<string, string>>;
}

const siblings = { type: 'object', additionalProperties: { type: 'string', minLength: 1 } } as const;

function resolveFallback(catalogue: Catalogue, families: readonly string[], fallback: RetryConfig['fallback']): Map<string, ModelEntry> {
  const map = new Map<string, ModelEntry>();
  for (const [family, pairs] of Object.entries(fallback)) {
    if (!families.includes(family)) throw new PluginConfigError(`/fallback/${family} names a family no enabled vendor plugin serves`);
    for (const [from, to] of Object.entries(pairs)) {
      const where = `/fallback/${family}/${from}`;
      const primary = catalogue.resolve(from);
      const sibling = catalogue.resolve(to);
      if (!primary) throw new PluginConfigError(`${where}: unknown model '${from}'`);
      if (!sibling) throw new PluginConfigError(`${where}: unknown sibling '${to}'`);
      if (primary.family !== family || sibling.family !== family) {
        throw new PluginConfigError(`${where}: '${primary.id}' and '${sibling.id}' must both belong to the ${family} family`);
      }
      if (primary.id === sibling.id) throw new PluginConfigError(`${where}: a model cannot be its own sibling`);
      map.set(primary.id, sibling);
    }
  }
  return map;
}

export default definePlugin({
  name: 'retry',
  // The sibling depends on the call's model and the key's allowlist.
  needs: ['key', 'model'],
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      cadence: {
        type: 'array',
        minItems: 1,
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['delay_ms', 'jitter_ms'],
          properties: { delay_ms: { type: 'integer', minimum: 0 }, jitter_ms: { type: 'integer', minimum: 0 } },
        },
        default: SPEC_CADENCE.map((step) => ({ delay_ms: step.delayMs, jitter_ms: step.jitterMs })),
      },
      min_attempt_ms: { type: 'integer', minimum: 0, default: 1000 },
      fallback: { type: 'object', additionalProperties: siblings, default: {} },
    },
  },
  setup({ config, catalogue, families }, settings: RetryConfig) {
    const fallback = resolveFallback(catalogue, families, settings.fallback);
    const retryPolicy = createRetryPolicy({
      max: config.retry.max,
      cadence: settings.cadence.map((step) => ({ delayMs: step.delay_ms, jitterMs: step.jitter_ms })),
      minAttemptMs: settings.min_attempt_ms,
      fallback,
    });
    // Without a fallback configured, calls pay nothing here; with one, a map lookup each.
    if (fallback.size === 0) return { retryPolicy };
    return {
      retryPolicy,
      onRequest(call) {
        call.fallbackModel = siblingFor(call, fallback);
      },
    };
  },
});

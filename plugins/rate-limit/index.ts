import { definePlugin, GatewayError } from '../../src/plugin-api.js';
import { rateLimitHeaders } from './headers.js';

/**
 * `rate-limit`: a per-key requests-per-minute cap on model calls (off unless configured): the
 * key's own `rpm_limit` (admin API), else `default_rpm`. Over the cap → 429 rate_limited with
 * Retry-After in whole seconds, until the oldest request of the last minute leaves the window.
 * It stands after scope and before the ceiling (check order 403 → 429 → 402). The window lives
 * in the store (RateStore): exact across every instance sharing it, nothing for a key without a
 * cap. The take is an admission step (src/chain/admission-steps.ts), run after the request
 * hooks: in the ceiling's round trip when the call has one, else in its own. Admissions that
 * left the window are swept every minute. Every answer to a capped key after its take (the 429
 * too) carries the take's headroom in the headers of the format called (headers.ts).
 */

const WINDOW_MS = 60_000;

export default definePlugin({
  name: 'rate-limit',
  needs: ['key', 'model'],
  after: ['scope'],
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: { default_rpm: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }], default: null } },
  },
  setup({ clock, store, log }, config: { default_rpm: number | null }) {
    const sweeper = setInterval(() => {
      store.rates.sweep(clock.now() - WINDOW_MS).catch((error: unknown) => log.warn({ err: error }, 'rate cap sweep failed'));
    }, WINDOW_MS);
    sweeper.unref();
    return {
      onRequest(call) {
        const key = call.key;
        const limit = key.rpmLimit ?? config.default_rpm;
        if (!limit) return;
        const now = clock.now();
        call.admission.queueTake({ keyId: key.id, limit, windowMs: WINDOW_MS, now }, ({ waitMs, remaining, resetMs }) => {
          const dialect = call.endpoint.format.rateLimitHeaders;
          // Set on the response now, they go out with whatever answers the call: the reply, a later error, this 429.
          if (dialect)
            for (const [name, value] of Object.entries(rateLimitHeaders(dialect, { limit, remaining, resetMs }, now))) call.res.setHeader(name, value);
          if (waitMs === 0) return;
          const seconds = Math.max(1, Math.ceil(waitMs / 1000));
          throw new GatewayError(429, `This API key is limited to ${limit} requests per minute. Retry in ${seconds} s.`, {
            headers: { 'retry-after': String(seconds) },
          });
        });
      },
      close() {
        clearInterval(sweeper);
      },
    };
  },
});

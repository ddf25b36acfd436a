import { collectDefaultMetrics } from 'prom-client';
import { definePlugin } from '../../src/plugin-api.js';
import { OPERATOR_PORT_PROPERTIES, placeOperatorRoutes, presentedBearer, sendError } from '../../src/toolkit/routes.js';
import { hashSecret } from '../../src/toolkit/secrets.js';
import { GatewaySeries } from './series.js';

/**
 * `metrics`: Prometheus text on `/metrics` from the gateway's own prom-client registry — the
 * gateway's series (see series.ts) and Node's default process metrics; with several workers,
 * every worker's registry summed (the context's scrapeMetrics). Served on the gateway's
 * port, or on a port of its own (`port`), optionally behind a bearer token (`token`). List it
 * first (below `telemetry` only, which refuses nothing) so that its onRequest counts every call
 * in flight and its onComplete runs after every other plugin's but telemetry's.
 */

interface MetricsConfig {
  /** A separate listener for /metrics; null serves it on the gateway's port. */
  port: number | null;
  /** Host of the separate listener (default: the gateway's host). */
  host: string | null;
  /** Bearer token required to scrape; null: none. */
  token: string | null;
}

export default definePlugin<MetricsConfig>({
  name: 'metrics',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      ...OPERATOR_PORT_PROPERTIES,
      token: { anyOf: [{ type: 'string', minLength: 16 }, { type: 'null' }], default: null },
    },
  },
  async setup({ metrics: registry, scrapeMetrics, config, log }, settings) {
    collectDefaultMetrics({ register: registry });
    const series = new GatewaySeries(registry);
    const tokenHash = settings.token === null ? null : hashSecret(settings.token);
    const placed = await placeOperatorRoutes(settings.port, settings.host ?? config.server.host, (router) => {
      router.get('/metrics', async (req, res) => {
        const presented = tokenHash ? presentedBearer(req, tokenHash, 'A valid metrics token is required: Authorization: Bearer <token>.') : null;
        if (presented && 'refusal' in presented) {
          sendError(res, presented.refusal);
          return;
        }
        const text = await scrapeMetrics();
        res.writeHead(200, { 'content-type': registry.contentType, 'cache-control': 'no-store' });
        res.end(text);
      });
    });
    if (placed.side) log.info({ origin: placed.side.origin }, 'metrics listening on their own port');
    return {
      ...(placed.routes ? { routes: placed.routes } : {}),
      onRequest(call) {
        series.started(call);
      },
      onComplete(call) {
        series.completed(call);
      },
      async close() {
        await placed.side?.close();
      },
    };
  },
});

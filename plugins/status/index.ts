import { performance } from 'node:perf_hooks';
import { definePlugin, type Call } from '../../src/plugin-api.js';
import { OPERATOR_PORT_PROPERTIES, placeOperatorRoutes } from '../../src/toolkit/routes.js';
import { openCooldownLog } from '../../src/toolkit/upstream-health.js';
import { mountCooldownRoutes } from './cooldown-routes.js';
import { mountIncidentRoutes } from './incident-routes.js';
import { DAY_MS, HISTORY_DAYS } from './history.js';
import { IncidentWatch, SLOT_MS } from './incident-watch.js';
import { MinuteRecorder } from './minute-recorder.js';
import { renderStatusPage } from './page.js';
import { STATUS_STATE } from './store/state.js';
import { buildReport, WINDOWS } from './report.js';

/**
 * `status`: the public status site — `GET /status` (HTML for people) and `GET /status.json`
 * (the same figures) — built from the calls every gateway instance sharing the store served,
 * rolled up per minute, per hour and per day in the store; automatic incidents when a model's upstream
 * error rate over every instance passes a threshold, resolved when it recovers; manual
 * incidents under /admin/v1/incidents; for operators, the upstream deployments' cooldowns under
 * /admin/v1/cooldowns. Served on the gateway's port, or on a port of its own.
 */

interface StatusConfig {
  port: number | null;
  host: string | null;
  /** How often recorded minutes are written to the store (also before every read and at shutdown). */
  flush_ms: number;
  /** `check_ms`: how often this instance adds its attempt counts to the store and decides (also before every read). */
  incidents: { open_at_error_rate: number; resolve_below_error_rate: number; window_s: number; min_attempts: number; check_ms: number };
}

/** Minute rollups are kept a bit over a day, hour rollups a bit over 30 days. */
const KEEP_MINUTES_MS = 25 * 3_600_000;
const KEEP_HOURS_MS = WINDOWS[2].ms + 24 * 3_600_000;
/** Day rollups: the history's 90 days, and two more. */
const KEEP_DAYS_MS = (HISTORY_DAYS + 2) * DAY_MS;
const PRUNE_EVERY_MS = 3_600_000;

const rate = { type: 'number', exclusiveMinimum: 0, maximum: 1 } as const;

/** An upstream attempt that failed on the upstream's side: no answer, a 5xx, or a broken reply (4xx are the request's fault). */
const upstreamFault = (status: number, code: string | null): boolean => code !== null && !(status >= 400 && status < 500);

/**
 * What the status page counts for a call that reached an upstream: whether it failed (5xx), and
 * a success's latency until its first byte (a whole reply goes out right after completion).
 */
function verdict(call: Call): { failed: boolean; latencyMs: number | null } {
  const failed = (call.error?.status ?? 0) >= 500;
  if (failed || call.outcome !== 'ok') return { failed, latencyMs: null };
  const { firstByte, received } = call.timings;
  return { failed, latencyMs: (firstByte || performance.now()) - received };
}

export default definePlugin<StatusConfig>({
  name: 'status',
  configSchema: {
    type: 'object',
    additionalProperties: false,
    properties: {
      ...OPERATOR_PORT_PROPERTIES,
      flush_ms: { type: 'integer', minimum: 100, default: 10_000 },
      incidents: {
        type: 'object',
        additionalProperties: false,
        default: {},
        properties: {
          open_at_error_rate: { ...rate, default: 0.5 },
          resolve_below_error_rate: { ...rate, default: 0.1 },
          window_s: { type: 'integer', minimum: 10, maximum: 86_400, default: 300 },
          min_attempts: { type: 'integer', minimum: 1, default: 10 },
          check_ms: { type: 'integer', minimum: 100, maximum: 60_000, default: 2000 },
        },
      },
    },
  },
  async setup({ store, catalogue, clock, config, log, simulatedFamilies }, settings) {
    const status = await store.extend(STATUS_STATE);
    const cooldowns = await openCooldownLog(store);
    const recorder = new MinuteRecorder(status);
    const { incidents } = settings;
    const watch = new IncidentWatch(
      {
        openAt: incidents.open_at_error_rate,
        resolveBelow: Math.min(incidents.resolve_below_error_rate, incidents.open_at_error_rate),
        windowSeconds: incidents.window_s,
        minAttempts: incidents.min_attempts,
      },
      status,
      clock,
      log,
    );

    let lastPrune = 0;
    const flush = async (): Promise<void> => {
      await recorder.flush();
      const now = clock.now();
      if (now - lastPrune >= PRUNE_EVERY_MS) {
        lastPrune = now;
        // Attempt counts are needed for one incident window only.
        await status.prune({
          minutes: now - KEEP_MINUTES_MS,
          hours: now - KEEP_HOURS_MS,
          days: now - KEEP_DAYS_MS,
          attempts: now - incidents.window_s * 1000 - SLOT_MS,
        });
      }
    };
    const timer = setInterval(() => void flush().catch((error: unknown) => log.error({ err: error }, 'status flush failed')), settings.flush_ms);
    timer.unref();
    const checker = setInterval(() => void watch.check(), incidents.check_ms);
    checker.unref();
    const report = async () => {
      await flush();
      await watch.check();
      return buildReport(status, catalogue, simulatedFamilies, clock.now());
    };

    const placed = await placeOperatorRoutes(settings.port, settings.host ?? config.server.host, (router) => {
      router.get('/status.json', async (_req, res, next) => {
        try {
          const body = JSON.stringify(await report());
          res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-cache', 'access-control-allow-origin': '*' });
          res.end(body);
        } catch (error) {
          next(error);
        }
      });
      router.get('/status', async (_req, res, next) => {
        try {
          const page = renderStatusPage(await report());
          res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache' });
          res.end(page);
        } catch (error) {
          next(error);
        }
      });
    });
    if (placed.side) log.info({ origin: placed.side.origin }, 'status site listening on its own port');

    return {
      ...(placed.routes ? { routes: placed.routes } : {}),
      adminRoutes(router) {
        mountIncidentRoutes(router, { store: status, catalogue, clock });
        mountCooldownRoutes(router, { log: cooldowns, clock });
      },
      onComplete(call) {
        if (call.attempts === 0 || call.callerGone) return;
        const now = clock.now();
        for (const attempt of call.upstreamAttempts) watch.observe(attempt.model, upstreamFault(attempt.status, attempt.code));
        if (!call.model) return;
        const { failed, latencyMs } = verdict(call);
        recorder.record(call.model.id, call.endpoint.name, now, failed, latencyMs);
      },
      async close() {
        clearInterval(timer);
        clearInterval(checker);
        await flush().catch((error: unknown) => log.error({ err: error }, 'status flush failed at shutdown'));
        await watch.check();
        await placed.side?.close();
      },
    };
  },
});

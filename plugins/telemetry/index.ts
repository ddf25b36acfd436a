import { definePlugin, type PluginHooks } from '../../src/plugin-api.js';
import { CallMetrics } from './metrics.js';
import { startSdk } from './sdk.js';
import { signalOn } from './switch.js';
import { CallTraces } from './traces.js';

/**
 * `telemetry`: OpenTelemetry traces and metrics of every call, exported over OTLP/HTTP
 * (docs/telemetry.md). On only when the standard variables name a collector
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or a signal's own endpoint), read from the gateway's
 * environment; off, the plugin has no hooks at all and the chain does nothing for it. List it
 * first: its `onHeaders` starts the call's span (and sets `call.traceId`) before any other
 * hook, and its completion hook, run last, sees the call settled.
 */
export default definePlugin({
  name: 'telemetry',
  setup({ env, log, upstreamBaseUrl }): PluginHooks {
    const traced = signalOn(env, 'TRACES');
    if (!traced && !signalOn(env, 'METRICS')) return {};
    const sdk = startSdk(env, log);
    const traces = sdk.tracer ? new CallTraces(sdk.tracer, upstreamBaseUrl) : null;
    const metrics = sdk.meter ? new CallMetrics(sdk.meter) : null;
    log.info({ traces: traced, metrics: metrics !== null }, 'OpenTelemetry export on');
    return {
      ...(traces
        ? {
            onHeaders: (call) => traces.begin(call),
            onUpstreamRequest: (call, request) => traces.attempt(call, request),
          }
        : {}),
      onComplete(call) {
        traces?.end(call);
        metrics?.record(call);
      },
      close: () => sdk.close(),
    };
  },
});

import { definePlugin, type PluginHooks } from '../../src/plugin-api.js';
import { signalOn } from './switch.js';

/**
 * `telemetry`: OpenTelemetry traces and metrics of every call, exported over OTLP/HTTP
 * (docs/telemetry.md). On only when the standard variables name a collector
 * (`OTEL_EXPORTER_OTLP_ENDPOINT` or a signal's own endpoint), read from the gateway's
 * environment; off, the plugin has no hooks at all and the chain does nothing for it, and the
 * SDK is not even loaded (it is imported only when a signal is on). List it first: its
 * `onHeaders` starts the call's span (and sets `call.traceId`) before any other hook, and its
 * completion hook, run last, sees the call settled.
 */
export default definePlugin({
  name: 'telemetry',
  async setup(context): Promise<PluginHooks> {
    const traced = signalOn(context.env, 'TRACES');
    if (!traced && !signalOn(context.env, 'METRICS')) return {};
    const { exportingHooks } = await import('./exporting.js');
    return exportingHooks(context, traced);
  },
});

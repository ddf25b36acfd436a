import type { PluginContext, PluginHooks } from '../../src/plugin-api.js';
import { captureContent } from './content.js';
import { CallMetrics } from './metrics.js';
import { startSdk } from './sdk.js';
import { CallTraces } from './traces.js';

/** The hooks of telemetry that is on: the SDK started, a span per call and attempt, the GenAI metrics. */
export function exportingHooks({ env, log, upstreamBaseUrl }: PluginContext, traced: boolean): PluginHooks {
  const sdk = startSdk(env, log);
  const traces = sdk.tracer ? new CallTraces(sdk.tracer, upstreamBaseUrl, captureContent(env)) : null;
  const metrics = sdk.meter ? new CallMetrics(sdk.meter) : null;
  log.info({ traces: traced, metrics: metrics !== null, message_content: traces !== null && captureContent(env) }, 'OpenTelemetry export on');
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
}

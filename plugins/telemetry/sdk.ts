import type { Meter, Tracer } from '@opentelemetry/api';
import { ExportResultCode, getNumberFromEnv, type ExportResult } from '@opentelemetry/core';
import { OTLPMetricExporter as JsonMetricExporter } from '@opentelemetry/exporter-metrics-otlp-http';
import { OTLPMetricExporter as ProtobufMetricExporter } from '@opentelemetry/exporter-metrics-otlp-proto';
import { OTLPTraceExporter as JsonTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as ProtobufTraceExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { MeterProvider, PeriodicExportingMetricReader } from '@opentelemetry/sdk-metrics';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { Logger } from 'pino';
import { protocolOf, signalOn, withOtelEnv, type Env } from './switch.js';

/**
 * The OpenTelemetry SDK as the gateway runs it: a tracer provider whose spans go through a batch
 * processor to an OTLP/HTTP exporter, and a meter provider read periodically into another. No
 * global is registered (no global provider, context manager or propagator), so gateways in one
 * process never share one. Everything is configured by the standard variables, read by the SDK
 * itself (src: switch.ts's `withOtelEnv`); the one the metrics SDK leaves to its callers,
 * `OTEL_METRIC_EXPORT_INTERVAL` (and its timeout), is read here with the SDK's own reader.
 */

/** The resource's `service.name` when `OTEL_SERVICE_NAME` (or `OTEL_RESOURCE_ATTRIBUTES`) names none. */
export const DEFAULT_SERVICE_NAME = 'model-gateway';
/** The scope name of the gateway's tracer and meter. */
const SCOPE = 'model-gateway';
/** The specification's defaults for the periodic metric reader. */
const METRIC_EXPORT_INTERVAL_MS = 60_000;
const METRIC_EXPORT_TIMEOUT_MS = 30_000;
/** A failing collector is logged at most once a minute. */
const FAILURE_LOG_INTERVAL_MS = 60_000;
/** How long `close` waits for the last spans and metrics to be exported. */
export const SHUTDOWN_BOUND_MS = 5_000;

export interface Sdk {
  /** Null when traces are off. */
  readonly tracer: Tracer | null;
  /** Null when metrics are off. */
  readonly meter: Meter | null;
  /** Exports what is pending and stops, within SHUTDOWN_BOUND_MS. */
  close(): Promise<void>;
}

/** Logs a failed export at most once per FAILURE_LOG_INTERVAL_MS, with how many failed since the last line; never throws. */
class ExportFailures {
  private lastLogged = -Infinity;
  private unlogged = 0;

  constructor(private readonly log: Logger) {}

  note(signal: string, result: ExportResult): void {
    if (result.code === ExportResultCode.SUCCESS) return;
    this.unlogged += 1;
    const now = Date.now();
    if (now - this.lastLogged < FAILURE_LOG_INTERVAL_MS) return;
    this.lastLogged = now;
    this.log.warn({ signal, failed_exports: this.unlogged, reason: result.error?.message }, 'telemetry export failed; what it held is dropped');
    this.unlogged = 0;
  }
}

interface Exporting<Items> {
  export(items: Items, done: (result: ExportResult) => void): void;
}

/** Has `exporter` tell `failures` of each export that failed (the SDK hands them to a global error handler, which would say nothing). */
function watched<Items, E extends Exporting<Items>>(exporter: E, signal: string, failures: ExportFailures): E {
  const send = exporter.export.bind(exporter);
  exporter.export = (items, done) =>
    send(items, (result) => {
      failures.note(signal, result);
      done(result);
    });
  return exporter;
}

function resource(): Resource {
  return defaultResource()
    .merge(resourceFromAttributes({ 'service.name': DEFAULT_SERVICE_NAME }))
    .merge(detectResources({ detectors: [envDetector] }));
}

function tracerProvider(env: Env, failures: ExportFailures, serviceResource: Resource): BasicTracerProvider {
  const exporter = protocolOf(env, 'TRACES') === 'http/json' ? new JsonTraceExporter() : new ProtobufTraceExporter();
  return new BasicTracerProvider({ resource: serviceResource, spanProcessors: [new BatchSpanProcessor(watched(exporter, 'traces', failures))] });
}

function meterProvider(env: Env, failures: ExportFailures, serviceResource: Resource): MeterProvider {
  const exporter = protocolOf(env, 'METRICS') === 'http/json' ? new JsonMetricExporter() : new ProtobufMetricExporter();
  const exportIntervalMillis = getNumberFromEnv('OTEL_METRIC_EXPORT_INTERVAL') ?? METRIC_EXPORT_INTERVAL_MS;
  // The reader refuses a timeout longer than its interval.
  const exportTimeoutMillis = Math.min(getNumberFromEnv('OTEL_METRIC_EXPORT_TIMEOUT') ?? METRIC_EXPORT_TIMEOUT_MS, exportIntervalMillis);
  const reader = new PeriodicExportingMetricReader({ exporter: watched(exporter, 'metrics', failures), exportIntervalMillis, exportTimeoutMillis });
  return new MeterProvider({ resource: serviceResource, readers: [reader] });
}

/** The SDK for the signals `env` switches on (at least one: the plugin asks `signalOn` first). */
export function startSdk(env: Env, log: Logger): Sdk {
  const failures = new ExportFailures(log);
  const { traces, metrics } = withOtelEnv(env, () => {
    const serviceResource = resource();
    return {
      traces: signalOn(env, 'TRACES') ? tracerProvider(env, failures, serviceResource) : null,
      metrics: signalOn(env, 'METRICS') ? meterProvider(env, failures, serviceResource) : null,
    };
  });
  return {
    tracer: traces?.getTracer(SCOPE) ?? null,
    meter: metrics?.getMeter(SCOPE) ?? null,
    async close() {
      let timer: NodeJS.Timeout | undefined;
      const bound = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_BOUND_MS);
        timer.unref();
      });
      const shutdown = Promise.all([traces?.shutdown(), metrics?.shutdown()]).then(
        () => undefined,
        (error: unknown) => log.warn({ err: error }, 'telemetry shutdown failed'),
      );
      await Promise.race([shutdown, bound]);
      clearTimeout(timer);
    },
  };
}

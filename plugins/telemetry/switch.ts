import { PluginConfigError, type PluginContext } from '../../src/plugin-api.js';

/**
 * Which signals the standard OpenTelemetry variables switch on, read from the gateway's
 * environment (`PluginContext.env`). A signal is on when its endpoint is set
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` /
 * `OTEL_EXPORTER_OTLP_METRICS_ENDPOINT` for one signal) and its exporter is not `none`
 * (`OTEL_TRACES_EXPORTER`, `OTEL_METRICS_EXPORTER`); `OTEL_SDK_DISABLED=true` turns both off.
 */

export type Env = PluginContext['env'];

export type Signal = 'TRACES' | 'METRICS';

/** The OTLP encodings the installed exporters speak. */
export type Protocol = 'http/protobuf' | 'http/json';

const present = (value: string | undefined): boolean => value !== undefined && value.trim() !== '';

const lowered = (value: string | undefined): string => value?.trim().toLowerCase() ?? '';

export function signalOn(env: Env, signal: Signal): boolean {
  if (lowered(env['OTEL_SDK_DISABLED']) === 'true') return false;
  if (lowered(env[`OTEL_${signal}_EXPORTER`]) === 'none') return false;
  return present(env['OTEL_EXPORTER_OTLP_ENDPOINT']) || present(env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]);
}

/** The signal's OTLP encoding: its own variable, else the common one, else `http/protobuf` (the specification's default). */
export function protocolOf(env: Env, signal: Signal): Protocol {
  const name = present(env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`]) ? `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL` : 'OTEL_EXPORTER_OTLP_PROTOCOL';
  const value = lowered(env[name]);
  if (value === '' || value === 'http/protobuf') return 'http/protobuf';
  if (value === 'http/json') return 'http/json';
  throw new PluginConfigError(`${name} is "${env[name]}": the gateway exports OTLP over http/protobuf or http/json`);
}

/**
 * Runs `build` while `process.env` holds the gateway's `OTEL_*` variables, then puts back what
 * was there. The SDK's pieces read their variables from `process.env` when constructed (the
 * exporters their endpoint and headers, the batch processor `OTEL_BSP_*`, the provider the
 * sampler, the resource `OTEL_SERVICE_NAME`); a gateway loaded with an environment of its own
 * (an embedding program, a test with two gateways) must be configured by that one. `build` is
 * synchronous, so nothing else runs while the variables are swapped.
 */
export function withOtelEnv<T>(env: Env, build: () => T): T {
  if (env === process.env) return build();
  const names = [...new Set([...Object.keys(process.env), ...Object.keys(env)])].filter((name) => name.startsWith('OTEL_'));
  const saved = names.map((name) => [name, process.env[name]] as const);
  const put = (name: string, value: string | undefined): void => {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  };
  for (const name of names) put(name, env[name]);
  try {
    return build();
  } finally {
    for (const [name, value] of saved) put(name, value);
  }
}

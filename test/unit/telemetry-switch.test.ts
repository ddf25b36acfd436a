import t from 'tap';
import { DEFAULT_SERVICE_NAME, SHUTDOWN_BOUND_MS } from '../../plugins/telemetry/sdk.js';
import { protocolOf, signalOn, withOtelEnv } from '../../plugins/telemetry/switch.js';
import { readDoc } from '../helpers/doc-facts.js';

/** What switches the telemetry plugin's signals on, from the standard variables (docs/telemetry.md). */

const COLLECTOR = 'http://127.0.0.1:4318';

t.test('a signal is on when its endpoint or the common one is set, unless disabled or its exporter is none', async (t) => {
  const cases: Array<[Record<string, string>, boolean, boolean]> = [
    [{}, false, false],
    [{ OTEL_SERVICE_NAME: 'x', OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' }, false, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' }, false, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: COLLECTOR }, true, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${COLLECTOR}/v1/traces` }, true, false],
    [{ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${COLLECTOR}/v1/metrics` }, false, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: COLLECTOR, OTEL_SDK_DISABLED: ' True ' }, false, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: COLLECTOR, OTEL_SDK_DISABLED: 'false' }, true, true],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: COLLECTOR, OTEL_METRICS_EXPORTER: 'none' }, true, false],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: COLLECTOR, OTEL_TRACES_EXPORTER: 'NONE' }, false, true],
  ];
  for (const [env, traces, metrics] of cases) {
    t.same([signalOn(env, 'TRACES'), signalOn(env, 'METRICS')], [traces, metrics], JSON.stringify(env));
  }
});

t.test("the protocol: the signal's own variable, else the common one, else http/protobuf; grpc refused naming the variable", async (t) => {
  t.equal(protocolOf({}, 'TRACES'), 'http/protobuf');
  t.equal(protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'HTTP/JSON' }, 'METRICS'), 'http/json');
  t.equal(protocolOf({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' }, 'TRACES'), 'http/protobuf');
  t.throws(() => protocolOf({ OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: 'grpc' }, 'METRICS'), /OTEL_EXPORTER_OTLP_METRICS_PROTOCOL is "grpc"/);
});

t.test("withOtelEnv: process.env holds the gateway's OTEL_* variables while building, and what it held before afterwards", async (t) => {
  process.env['OTEL_SERVICE_NAME'] = 'from-the-process';
  delete process.env['OTEL_BSP_SCHEDULE_DELAY'];
  t.teardown(() => {
    delete process.env['OTEL_SERVICE_NAME'];
  });
  const seen = withOtelEnv({ OTEL_BSP_SCHEDULE_DELAY: '50', PATH: 'not copied' }, () => [
    process.env['OTEL_SERVICE_NAME'],
    process.env['OTEL_BSP_SCHEDULE_DELAY'],
    process.env['PATH'] === 'not copied',
  ]);
  t.same(seen, [undefined, '50', false], "only the gateway's OTEL_* variables, the process's own left out");
  t.equal(process.env['OTEL_SERVICE_NAME'], 'from-the-process', 'restored');
  t.notOk('OTEL_BSP_SCHEDULE_DELAY' in process.env, 'removed again');
  t.throws(
    () =>
      withOtelEnv({ OTEL_SERVICE_NAME: 'x' }, () => {
        throw new Error('build failed');
      }),
    /build failed/,
  );
  t.equal(process.env['OTEL_SERVICE_NAME'], 'from-the-process', 'restored after a failure too');
  t.equal(
    withOtelEnv(process.env, () => process.env['OTEL_SERVICE_NAME']),
    'from-the-process',
    'process.env itself: used as it is',
  );
});

t.test("docs/telemetry.md states the plugin's defaults", async (t) => {
  const page = readDoc('telemetry.md');
  t.match(page, `| \`${DEFAULT_SERVICE_NAME}\` |`, 'the default service name');
  t.match(page, `waiting at most ${SHUTDOWN_BOUND_MS / 1000} s`, 'the shutdown bound');
});

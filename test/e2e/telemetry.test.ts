import { performance } from 'node:perf_hooks';
import t from 'tap';
import telemetry from '../../plugins/telemetry/index.js';
import type { Plugin } from '../../src/chain/plugin.js';
import type { GatewayConfig } from '../../src/config/schema.js';
import { definePlugin, type Call } from '../../src/plugin-api.js';
import { raw, startHarness, UPSTREAM_CREDENTIALS, type Harness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';
import { otlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';

/**
 * The telemetry plugin against a collector of the test's own (docs/telemetry.md): what the OTLP
 * exporters really send, read back as spans and metric points.
 */

const MODELS = { alpha: 'alpha-sonnet-4.6', beta: 'beta-3-flash', gamma: 'gamma-5.4' } as const;
const PROMPT = 'Tell me about the lighthouse keeper';

/** Export fast: spans batched for 50 ms, metrics every 200 ms. */
const otelEnv = (collector: OtlpReceiver, extra: Record<string, string> = {}): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '50',
  OTEL_METRIC_EXPORT_INTERVAL: '200',
  ...extra,
});

type Format = 'chat' | 'responses' | 'messages';

/** One call of `format` to `model`, streamed or not; resolves once its whole answer is read. */
async function call(h: Harness, key: string, format: Format, model: string, stream: boolean, headers: Record<string, string> = {}) {
  const path = { chat: '/v1/chat/completions', responses: '/v1/responses', messages: '/v1/messages' }[format];
  const body = {
    chat: { model, messages: [{ role: 'user', content: PROMPT }], stream, ...(stream ? { stream_options: { include_usage: true } } : {}) },
    responses: { model, input: PROMPT, stream },
    messages: { model, max_tokens: 64, messages: [{ role: 'user', content: PROMPT }], stream },
  }[format];
  const res = await raw(h.origin, 'POST', path, {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return res;
}

/** A plugin listed last that notes each call's `traceId` as its first hook and its completion see it, and whether its answer was noted. */
function traceIdProbe(): { plugin: Plugin; seen: Array<{ atHeaders: string | null; atComplete: string | null }>; noted: boolean[] } {
  const seen: Array<{ atHeaders: string | null; atComplete: string | null }> = [];
  const noted: boolean[] = [];
  const plugin = definePlugin({
    name: 'trace-id-probe',
    setup: () => {
      const atHeaders = new Map<Call, string | null>();
      return {
        onHeaders: (call) => void atHeaders.set(call, call.traceId),
        onComplete: (call) => {
          seen.push({ atHeaders: atHeaders.get(call) ?? null, atComplete: call.traceId });
          noted.push(call.answerNotes !== null);
        },
      };
    },
  });
  return { plugin, seen, noted };
}

/** The harness options that list the probe last. */
const withProbe = (probe: ReturnType<typeof traceIdProbe>) => ({
  registered: { 'trace-id-probe': probe.plugin },
  configure: (config: GatewayConfig) => void config.plugins.push({ name: 'trace-id-probe', enabled: true, config: {} }),
});

const byTrace = (spans: ReceivedSpan[], traceId: string): ReceivedSpan[] => spans.filter((span) => span.traceId === traceId);

for (const protocol of ['http/protobuf', 'http/json']) {
  t.test(`a SERVER span per call and a CLIENT span per attempt, for every format on every family, streamed or not (${protocol})`, async (t) => {
    const collector = await otlpReceiver(t);
    const h = await startHarness(t, { env: otelEnv(collector, { OTEL_EXPORTER_OTLP_PROTOCOL: protocol }) });
    const { id, key } = await h.createKey();
    const ledger = openLedgerDb(h.dbPath);
    t.teardown(() => ledger.close());
    const cases: Array<{ format: Format; family: keyof typeof MODELS; stream: boolean }> = [];
    for (const format of ['chat', 'responses', 'messages'] as const) {
      for (const family of ['alpha', 'beta', 'gamma'] as const) for (const stream of [false, true]) cases.push({ format, family, stream });
    }
    for (const { format, family, stream } of cases) {
      const res = await call(h, key, format, MODELS[family], stream);
      t.equal(res.status, 200, `${format} ${family} ${stream ? 'streamed' : 'whole'}: answered`);
    }
    const rows = ledger.rows(id);
    t.equal(rows.length, cases.length, 'a ledger row per call');
    const spans = await collector.until('every span', () => {
      const all = collector.spans();
      return all.length >= cases.length * 2 && all;
    });
    const servers = spans.filter((span) => span.kind === 2);
    t.equal(servers.length, cases.length, 'one SERVER span per call');
    cases.forEach(({ format, family, stream }, index) => {
      const what = `${format} ${family} ${stream ? 'streamed' : 'whole'}`;
      const server = servers[index] as ReceivedSpan;
      const row = rows[index];
      const path = { chat: '/v1/chat/completions', responses: '/v1/responses', messages: '/v1/messages' }[format];
      t.equal(server.name, `POST ${path}`, `${what}: the server span is named after the route`);
      t.match(server.attributes, { 'http.request.method': 'POST', 'http.route': path, 'http.response.status_code': 200, 'gateway.key_id': id }, what);
      t.equal(server.parentSpanId, '', `${what}: a root span (no traceparent was sent)`);
      const clients = byTrace(spans, server.traceId).filter((span) => span.kind === 3);
      t.equal(clients.length, 1, `${what}: one CLIENT span`);
      const client = clients[0] as ReceivedSpan;
      t.equal(client.parentSpanId, server.spanId, `${what}: the client span is the server span's child`);
      t.equal(client.name, `chat ${MODELS[family]}`, `${what}: named {operation} {model}`);
      t.match(
        client.attributes,
        {
          'gen_ai.operation.name': 'chat',
          'gen_ai.provider.name': family,
          'gen_ai.request.model': MODELS[family],
          'gen_ai.response.model': MODELS[family],
          'gen_ai.usage.input_tokens': row?.prompt_tokens,
          'gen_ai.usage.output_tokens': row?.completion_tokens,
          'gateway.key_id': id,
          'gateway.deployment': 'default',
          'gateway.attempt': 1,
          'gateway.cost_usd': (row?.charged_nano ?? NaN) / 1e9,
          'server.address': '127.0.0.1',
          'http.response.status_code': 200,
        },
        `${what}: the client span's attributes, its counts the ledger row's`,
      );
      t.ok(Number(client.attributes['gen_ai.usage.output_tokens']) > 0, `${what}: output tokens counted`);
      t.equal(client.statusCode === 2, false, `${what}: not an error`);
      if (format === 'messages') t.equal(client.attributes['gen_ai.request.max_tokens'], 64, `${what}: the caller's max_tokens`);
      t.ok(client.startNs >= server.startNs && client.endNs <= server.endNs, `${what}: the attempt lies within the call`);
    });
    t.equal(new Set(servers.map((span) => span.traceId)).size, cases.length, 'a trace per call');
    t.equal(servers[0]?.resource['service.name'], 'model-gateway', 'the default service name');
  });
}

t.test('the operation names: embeddings, text_completion, count_tokens', async (t) => {
  const collector = await otlpReceiver(t);
  const h = await startHarness(t, { env: otelEnv(collector) });
  const { key } = await h.createKey();
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
  const asks: Array<[string, object, string]> = [
    ['/v1/embeddings', { model: MODELS.beta, input: 'lighthouse' }, `embeddings ${MODELS.beta}`],
    ['/v1/completions', { model: MODELS.gamma, prompt: 'lighthouse', max_tokens: 5 }, `text_completion ${MODELS.gamma}`],
    ['/v1/messages/count_tokens', { model: MODELS.alpha, messages: [{ role: 'user', content: 'lighthouse' }] }, `count_tokens ${MODELS.alpha}`],
  ];
  for (const [path, body] of asks) t.equal((await raw(h.origin, 'POST', path, { headers, body: JSON.stringify(body) })).status, 200, path);
  const names = await collector.until('the client spans', () => {
    const found = collector.spans().filter((span) => span.kind === 3);
    return found.length >= asks.length && found.map((span) => span.name).sort();
  });
  t.same(names, asks.map(([, , name]) => name).sort());
});

t.test("cache and reasoning token counts: the answer's, on the answering attempt", async (t) => {
  const collector = await otlpReceiver(t);
  const h = await startHarness(t, { env: otelEnv(collector) });
  const { key } = await h.createKey();
  const headers = { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' };
  const system = [{ type: 'text', text: 'You answer in one short line.', cache_control: { type: 'ephemeral' } }];
  const messages = (text: string) => JSON.stringify({ model: MODELS.alpha, max_tokens: 64, system, messages: [{ role: 'user', content: text }] });
  const written = (await raw(h.origin, 'POST', '/v1/messages', { headers, body: messages('first question here') })).json().usage;
  const read = (await raw(h.origin, 'POST', '/v1/messages', { headers, body: messages('another question here') })).json().usage;
  t.ok(written.cache_creation_input_tokens > 0 && read.cache_read_input_tokens > 0, 'the simulator wrote, then read, its cache');
  const reasoned = (
    await raw(h.origin, 'POST', '/v1/chat/completions', {
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODELS.alpha, reasoning_effort: 'high', messages: [{ role: 'user', content: PROMPT }] }),
    })
  ).json().usage;
  t.ok(reasoned.completion_tokens_details.reasoning_tokens > 0, 'the answer counts reasoning tokens');
  const clients = await collector.until('three client spans', () => {
    const found = collector.spans().filter((span) => span.kind === 3);
    return found.length >= 3 && found.sort((a, b) => Number(a.startNs - b.startNs));
  });
  const [first, second, third] = clients.map((span) => span.attributes);
  t.equal(first?.['gen_ai.usage.cache_creation.input_tokens'], written.cache_creation_input_tokens, 'the cache write');
  t.equal(second?.['gen_ai.usage.cache_read.input_tokens'], read.cache_read_input_tokens, 'the cache read');
  t.equal(third?.['gen_ai.usage.reasoning.output_tokens'], reasoned.completion_tokens_details.reasoning_tokens, 'the reasoning tokens');
  t.notOk('gen_ai.usage.reasoning.output_tokens' in (first ?? {}), 'no reasoning count where the model did not reason');
});

t.test(
  "a retried call: a CLIENT span per attempt, the failed one an error with its code; the caller's traceparent continued and each attempt's sent upstream",
  async (t) => {
    const collector = await otlpReceiver(t);
    const probe = traceIdProbe();
    const h = await startHarness(t, { env: otelEnv(collector), ...withProbe(probe) });
    const { key } = await h.createKey();
    h.gamma.faults.push({ status: 503 });
    const callerTrace = '0af7651916cd43dd8448eb211c80319c';
    const callerSpan = 'b7ad6b7169203331';
    const res = await call(h, key, 'chat', MODELS.gamma, false, { traceparent: `00-${callerTrace}-${callerSpan}-01`, tracestate: 'caller=1' });
    t.equal(res.status, 200, 'answered after a retry');
    const spans = await collector.until('the retried call', () => {
      const mine = byTrace(collector.spans(), callerTrace);
      return mine.length >= 3 && mine;
    });
    const server = spans.find((span) => span.kind === 2) as ReceivedSpan;
    t.equal(server.parentSpanId, callerSpan, "the server span continues the caller's trace, the caller's span its parent");
    t.same(probe.seen.at(-1), { atHeaders: callerTrace, atComplete: callerTrace }, "call.traceId is the trace's before every other hook");
    const clients = spans.filter((span) => span.kind === 3).sort((a, b) => Number(a.attributes['gateway.attempt']) - Number(b.attributes['gateway.attempt']));
    t.equal(clients.length, 2, 'one CLIENT span per attempt');
    const [first, second] = clients as [ReceivedSpan, ReceivedSpan];
    t.match(first.attributes, { 'gateway.attempt': 1, 'error.type': '503', 'http.response.status_code': 503 }, "the failed attempt's code");
    t.equal(first.statusCode, 2, 'the failed attempt is an error');
    t.notOk('gen_ai.usage.input_tokens' in first.attributes, 'no usage on the failed attempt');
    t.match(second.attributes, { 'gateway.attempt': 2, 'gen_ai.response.model': MODELS.gamma }, 'the answering attempt');
    t.notOk('error.type' in second.attributes, 'the answering attempt is no error');
    t.ok(Number(second.attributes['gen_ai.usage.output_tokens']) > 0, 'the usage belongs to the answering attempt');
    t.ok(first.endNs <= second.startNs, 'the second attempt follows the first');
    const sent = h.gamma.requests.slice(-2).map((request) => request.headers['traceparent']);
    t.same(
      sent,
      clients.map((span) => `00-${callerTrace}-${span.spanId}-01`),
      "each attempt's traceparent names the caller's trace and that attempt's CLIENT span",
    );
    t.same(
      h.gamma.requests.slice(-2).map((request) => request.headers['tracestate']),
      ['caller=1', 'caller=1'],
      "the caller's tracestate travels on",
    );
  },
);

t.test('an invalid traceparent starts a trace of its own', async (t) => {
  const collector = await otlpReceiver(t);
  const h = await startHarness(t, { env: otelEnv(collector) });
  const { key } = await h.createKey();
  const res = await call(h, key, 'chat', MODELS.gamma, false, { traceparent: '00-00000000000000000000000000000000-b7ad6b7169203331-01' });
  t.equal(res.status, 200);
  const [server] = await collector.until('the server span', () => {
    const found = collector.spans().filter((span) => span.kind === 2);
    return found.length > 0 && found;
  });
  t.equal(server?.parentSpanId, '', 'a root span');
  t.match(server?.traceId, /^[0-9a-f]{32}$/);
  t.not(server?.traceId, '00000000000000000000000000000000');
});

t.test('the three GenAI metrics, with the operation, provider and models, without the key', async (t) => {
  const collector = await otlpReceiver(t);
  const h = await startHarness(t, { env: otelEnv(collector) });
  const { id, key } = await h.createKey();
  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  t.equal((await call(h, key, 'chat', MODELS.alpha, false)).status, 200);
  t.equal((await call(h, key, 'messages', MODELS.alpha, true)).status, 200);
  const [whole, streamed] = ledger.rows(id);
  const wanted = ['gen_ai.client.token.usage', 'gen_ai.client.operation.duration', 'gen_ai.server.time_to_first_token'];
  const points = await collector.until('the three metrics with both calls', () => {
    // Cumulative points: the latest export's are the totals; wait for one that counts both calls.
    const latest = collector.points();
    const duration = latest.filter((p) => p.metric === 'gen_ai.client.operation.duration').at(-1);
    return duration?.count === 2 && wanted.every((name) => latest.some((p) => p.metric === name)) && latest;
  });
  const last = (metric: string, type?: string) =>
    points.filter((p) => p.metric === metric && (type === undefined || p.attributes['gen_ai.token.type'] === type)).at(-1);
  const common = {
    'gen_ai.operation.name': 'chat',
    'gen_ai.provider.name': 'alpha',
    'gen_ai.request.model': MODELS.alpha,
    'gen_ai.response.model': MODELS.alpha,
  };
  const input = last('gen_ai.client.token.usage', 'input');
  const output = last('gen_ai.client.token.usage', 'output');
  t.match(
    input,
    { unit: '{token}', count: 2, sum: (whole?.prompt_tokens ?? NaN) + (streamed?.prompt_tokens ?? NaN), attributes: common },
    "input tokens: the ledger rows'",
  );
  t.match(
    output,
    { count: 2, sum: (whole?.completion_tokens ?? NaN) + (streamed?.completion_tokens ?? NaN), attributes: common },
    "output tokens: the ledger rows'",
  );
  t.match(last('gen_ai.client.operation.duration'), { unit: 's', count: 2, attributes: common }, 'a duration per call, in seconds');
  t.match(last('gen_ai.server.time_to_first_token'), { unit: 's', count: 1, attributes: common }, 'a time to first token for the streamed call only');
  t.ok((last('gen_ai.client.operation.duration')?.sum ?? 0) > 0);
  t.notOk(
    points.some((p) => Object.keys(p.attributes).some((name) => name.startsWith('gateway.')) || Object.values(p.attributes).includes(id)),
    'no key (nor any per-caller attribute) on a metric',
  );
});

t.test('a failed call: the server span is an error, the metric carries error.type', async (t) => {
  const collector = await otlpReceiver(t);
  const h = await startHarness(t, { env: otelEnv(collector, { GATEWAY_RETRY_MAX: '0' }) });
  const { key } = await h.createKey();
  h.beta.faults.push({ status: 500 });
  const res = await call(h, key, 'chat', MODELS.beta, false);
  t.ok(res.status >= 500, `the caller hears ${res.status}`);
  const server = await collector.until('the server span', () => collector.spans().find((span) => span.kind === 2));
  t.equal(server.statusCode, 2, 'the server span is an error');
  t.equal(server.attributes['http.response.status_code'], res.status);
  t.equal(server.attributes['error.type'], '500', "the error type: the failed attempt's code");
  const duration = await collector.until('the duration', () => collector.points().find((p) => p.metric === 'gen_ai.client.operation.duration'));
  t.equal(duration.attributes['error.type'], '500', 'the duration of a failed call says why');
  t.notOk(
    collector.points().some((p) => p.metric === 'gen_ai.client.token.usage'),
    'no tokens for a call that got no answer',
  );
});

t.test('a stream cut short: billed, so its attempt carries the usage, and is an error with its code', async (t) => {
  const collector = await otlpReceiver(t);
  const h = await startHarness(t, { env: otelEnv(collector) });
  const { id, key } = await h.createKey();
  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  h.gamma.faults.push({ resetAfterFrames: 3 });
  const res = await call(h, key, 'chat', MODELS.gamma, true);
  t.equal(res.status, 200, 'the stream had begun');
  const [row] = ledger.rows(id);
  t.ok(row && row.completion_tokens > 0, 'the ledger billed what was relayed');
  const client = await collector.until('the client span', () => collector.spans().find((span) => span.kind === 3));
  t.equal(client.statusCode, 2, 'an error');
  t.match(client.attributes, { 'error.type': 'reset', 'gen_ai.usage.output_tokens': row?.completion_tokens }, "the failure's code, the billed counts");
  const firstChunk = JSON.parse((res.text.split('\n').find((line) => line.startsWith('data: {')) as string).slice(6));
  t.equal(client.attributes['gen_ai.response.id'], firstChunk.id, 'the id the caller got, although the stream was cut');
  t.equal(client.attributes['gen_ai.response.finish_reasons'], undefined, 'no finish reason: no choice finished');
  const output = await collector.until('the output tokens', () =>
    collector.points().find((p) => p.metric === 'gen_ai.client.token.usage' && p.attributes['gen_ai.token.type'] === 'output'),
  );
  t.match(output, { sum: row?.completion_tokens, attributes: { 'error.type': 'reset' } }, 'the billed tokens counted, with the error type');
});

t.test('no prompt, no reply, no key secret and no upstream credential in anything exported', async (t) => {
  const collector = await otlpReceiver(t);
  const h = await startHarness(t, { env: otelEnv(collector) });
  const { key } = await h.createKey();
  const replies: string[] = [];
  for (const family of ['alpha', 'beta', 'gamma'] as const) {
    for (const stream of [false, true]) {
      const res = await call(h, key, 'chat', MODELS[family], stream);
      t.equal(res.status, 200);
      replies.push(res.text);
    }
  }
  // A refused call with the key in the query (the Gemini format's `?key=`) too.
  await raw(h.origin, 'POST', `/v1beta/models/${MODELS.beta}:generateContent?key=${key}x`, { headers: { 'content-type': 'application/json' }, body: '{}' });
  await collector.until('every span', () => collector.spans().length >= 13);
  await collector.until('the metrics', () => collector.points().length > 0);
  const exported = collector.exports.map((e) => e.body.toString('utf8')).join('\n');
  for (const [what, secret] of [['the key', key], ...UPSTREAM_CREDENTIALS, ['the prompt', 'lighthouse']] as const) {
    t.notOk(exported.includes(secret), `${what} is nowhere in the export`);
  }
  // The simulators' replies are made of the same words (src/simulators/reply-plan.ts): these are in every reply, and in no export.
  for (const word of ['simulated', 'deterministic', 'counted']) {
    t.ok(
      replies.every((reply) => reply.includes(word)),
      `every reply says "${word}"`,
    );
    t.notOk(exported.includes(word), `"${word}" is not exported`);
  }
});

t.test('http/protobuf (the default): the exporters post protobuf that carries the trace', async (t) => {
  const collector = await otlpReceiver(t);
  const env = otelEnv(collector);
  delete env['OTEL_EXPORTER_OTLP_PROTOCOL'];
  const h = await startHarness(t, { env });
  const { key } = await h.createKey();
  const res = await call(h, key, 'chat', MODELS.gamma, false);
  t.equal(res.status, 200);
  const traceId = h.gamma.requests.at(-1)?.headers['traceparent']?.toString().split('-')[1] ?? '';
  t.match(traceId, /^[0-9a-f]{32}$/, 'the upstream got a traceparent');
  const traces = await collector.until('a traces export', () => collector.exports.find((e) => e.path === '/v1/traces'));
  t.equal(traces.contentType, 'application/x-protobuf');
  // Protobuf keeps ids as raw bytes and strings as UTF-8: the trace id's 16 bytes and the span names are in the body.
  t.ok(traces.body.includes(Buffer.from(traceId, 'hex')), "the call's trace id, as bytes");
  t.ok(traces.body.includes(Buffer.from(`chat ${MODELS.gamma}`)), 'the client span, by name');
  const metrics = await collector.until('a metrics export', () => collector.exports.find((e) => e.path === '/v1/metrics'));
  t.equal(metrics.contentType, 'application/x-protobuf');
  t.ok(metrics.body.includes(Buffer.from('gen_ai.client.operation.duration')), 'the duration metric, by name');
  const point = await collector.until('the duration, decoded', () => collector.points().find((p) => p.metric === 'gen_ai.client.operation.duration'));
  t.match(point, { unit: 's', count: 1, attributes: { 'gen_ai.request.model': MODELS.gamma } }, 'decoded: one call measured, by model');
});

t.test('off: no OTEL_* endpoint, or OTEL_SDK_DISABLED — no hooks at all, no trace id, nothing sent', async (t) => {
  const context = { log: { info: () => undefined }, upstreamBaseUrl: () => undefined } as unknown as Parameters<typeof telemetry.setup>[0];
  for (const env of [{}, { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_SDK_DISABLED: 'true' }, { OTEL_SERVICE_NAME: 'x' }]) {
    const hooks = await telemetry.setup({ ...context, env }, {});
    t.same(Object.keys(hooks), [], `no hooks with ${JSON.stringify(env)}`);
  }
  const collector = await otlpReceiver(t);
  const probe = traceIdProbe();
  const h = await startHarness(t, {
    env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url, OTEL_SDK_DISABLED: 'TRUE', OTEL_METRIC_EXPORT_INTERVAL: '100' },
    ...withProbe(probe),
  });
  const { key } = await h.createKey();
  t.equal((await call(h, key, 'chat', MODELS.gamma, true)).status, 200);
  t.same(probe.seen.at(-1), { atHeaders: null, atComplete: null }, 'no trace id');
  t.same(probe.noted, [false], 'the answer was not noted');
  t.notOk('traceparent' in (h.gamma.requests.at(-1)?.headers ?? {}), 'no traceparent sent upstream');
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, 400));
  t.same(collector.exports, [], `nothing reached the collector in ${Math.round(performance.now() - started)} ms`);
});

t.test('one signal alone: a traces endpoint exports no metrics; OTEL_TRACES_EXPORTER=none leaves the metrics', async (t) => {
  const collector = await otlpReceiver(t);
  const tracesOnly = await startHarness(t, {
    env: {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${collector.url}/v1/traces`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_BSP_SCHEDULE_DELAY: '50',
      OTEL_METRIC_EXPORT_INTERVAL: '100',
    },
  });
  const { key } = await tracesOnly.createKey();
  t.equal((await call(tracesOnly, key, 'chat', MODELS.gamma, false)).status, 200);
  await collector.until('the spans', () => collector.spans().length >= 2);
  const metricsOnly = await startHarness(t, { env: otelEnv(collector, { OTEL_TRACES_EXPORTER: 'none', OTEL_SERVICE_NAME: 'gateway-two' }) });
  const second = await metricsOnly.createKey();
  t.equal((await call(metricsOnly, second.key, 'chat', MODELS.gamma, false)).status, 200);
  t.notOk('traceparent' in (metricsOnly.gamma.requests.at(-1)?.headers ?? {}), 'no traceparent without traces');
  await collector.until('the metrics', () => collector.points().length > 0);
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.equal(collector.spans().length, 2, 'the second gateway exported no spans');
  const services = new Set(collector.exports.filter((e) => e.path === '/v1/metrics').map((e) => e.body.toString('utf8').includes('"gateway-two"')));
  t.same([...services], [true], "every metrics export is the second gateway's (its own OTEL_SERVICE_NAME): the first sent none");
});

t.test('OTEL_EXPORTER_OTLP_PROTOCOL=grpc is refused at start, naming the variable', async (t) => {
  await t.rejects(
    startHarness(t, { env: { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:1', OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' } }),
    /OTEL_EXPORTER_OTLP_PROTOCOL is "grpc"/,
  );
});

t.test('an unreachable collector: calls are answered, the failure logged once, close is bounded', async (t) => {
  const h = await startHarness(t, {
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      OTEL_EXPORTER_OTLP_TIMEOUT: '200',
      OTEL_BSP_SCHEDULE_DELAY: '20',
      OTEL_METRIC_EXPORT_INTERVAL: '50',
    },
  });
  const { key } = await h.createKey();
  const failures = (): Array<Record<string, unknown>> =>
    h.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => String(line['msg']).startsWith('telemetry export failed'));
  for (let i = 0; i < 3; i++) t.equal((await call(h, key, 'chat', MODELS.gamma, i % 2 === 1)).status, 200, 'answered');
  const deadline = Date.now() + 15_000;
  while (failures().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
  t.match(failures()[0], { signal: /^(?:traces|metrics)$/, level: 40 }, 'the failure is a warning naming the signal');
  for (let i = 0; i < 3; i++) t.equal((await call(h, key, 'chat', MODELS.gamma, false)).status, 200, 'still answered');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  t.equal(failures().length, 1, 'one line for the failing collector in a minute, not one per export');
  const started = performance.now();
  await h.close();
  t.ok(performance.now() - started < 7000, 'the gateway closes within the bound');
});

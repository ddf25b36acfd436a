import t from 'tap';
import { settled } from '../helpers/pipeline-parts.js';
import { Registry } from 'prom-client';
import { ADJUSTED_HEADER } from '../../src/chain/adjustments.js';
import { definePlugin } from '../../src/chain/plugin.js';
import { loadConfig } from '../../src/config/load.js';
import { GatewayError } from '../../src/http/errors.js';
import { GatewaySeries } from '../../plugins/metrics/series.js';
import { chatBody, startHarness } from '../helpers/harness.js';
import { makeCall } from '../helpers/translate.js';

/** The mechanism behind "Clients as shipped" adjustments: the header, the log line, the metric, and `parameters: strict`. */

t.test('an adjustment is recorded once and announced in the answer header', async (t) => {
  const call = makeCall({ model: 'gamma-5.4' }, { model: 'gamma-5.4' });
  call.adjust('max_tokens', 'clamped:8192', 'max_tokens is above the model limit');
  call.adjust('tools[7]', 'omitted:web_search', 'no family runs web_search');
  call.adjust('max_tokens', 'clamped:8192', 'a translator retrying says it again');
  t.same(call.adjustments, [
    { param: 'max_tokens', action: 'clamped:8192' },
    { param: 'tools[7]', action: 'omitted:web_search' },
  ]);
  t.equal(call.res.getHeader(ADJUSTED_HEADER), 'max_tokens=clamped:8192, tools[7]=omitted:web_search');
});

t.test('under parameters: strict an adjustment is a 400 naming the parameter', async (t) => {
  const call = makeCall({ model: 'gamma-5.4' }, { model: 'gamma-5.4' });
  call.parameterPolicy = 'strict';
  const refusal = t.throws(() => call.adjust('tools[2]', 'omitted:web_search', 'tools[2] is a hosted tool no family here runs.')) as unknown;
  t.ok(refusal instanceof GatewayError);
  t.match(refusal, { status: 400, param: 'tools[2]', message: 'tools[2] is a hosted tool no family here runs.' });
  t.equal(call.adjustments, null, 'nothing recorded');
  t.equal(call.res.getHeader(ADJUSTED_HEADER), undefined);
});

t.test('the metric counts adjustments by parameter, indices dropped', async (t) => {
  const registry = new Registry();
  const series = new GatewaySeries(registry);
  for (const index of [3, 9]) {
    const call = makeCall({ model: 'gamma-5.4' }, { model: 'gamma-5.4' });
    call.adjust(`tools[${index}]`, 'omitted:web_search', 'x');
    call.adjust('max_output_tokens', 'clamped:128000', 'x');
    series.completed(settled(call));
  }
  const text = await registry.metrics();
  t.match(text, /gateway_adjusted_parameters_total\{param="tools\[\]"\} 2/);
  t.match(text, /gateway_adjusted_parameters_total\{param="max_output_tokens"\} 2/);
  t.notMatch(text, /tools\[3\]/, 'no caller-chosen index becomes a label value');
});

t.test('config: parameters is lenient by default, strict by config or GATEWAY_PARAMETERS, nothing else', async (t) => {
  t.equal(loadConfig('config/gateway.yaml', {}).config.parameters, 'lenient');
  t.equal(loadConfig('config/gateway.yaml', { GATEWAY_PARAMETERS: 'strict' }).config.parameters, 'strict');
  t.throws(() => loadConfig('config/gateway.yaml', { GATEWAY_PARAMETERS: 'loose' }), { message: /\/parameters must be one of lenient, strict/ });
});

t.test('through the gateway: the header on the answer, the log line, and strict mode answering 400', async (t) => {
  // A stand-in for a format that adjusts: every chat call with `user: "adjust-me"` has one adjustment.
  const adjuster = definePlugin({
    name: 'adjuster',
    setup: () => ({
      onRequest(call) {
        if (call.body['user'] === 'adjust-me') call.adjust('max_tokens', 'clamped:16', 'max_tokens is above this test limit of 16.');
      },
    }),
  });
  const plugins = ['ingress-chat', 'auth', 'model-normalise', 'adjuster', 'vendor-gamma', 'ledger'].map((name) => ({ name, enabled: true, config: {} }));
  for (const policy of ['lenient', 'strict'] as const) {
    const h = await startHarness(t, { registered: { adjuster }, plugins, env: { GATEWAY_PARAMETERS: policy } });
    const { key } = await h.createKey();
    const post = (body: string, stream = false): Promise<Response> =>
      fetch(`${h.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: stream ? body.replace(/}$/, ',"stream":true}') : body,
      });
    const plain = await post(chatBody('gamma-5.4'));
    t.equal(plain.status, 200);
    t.equal(plain.headers.get(ADJUSTED_HEADER), null, `${policy}: no header when nothing was adjusted`);
    await plain.text();
    for (const stream of [false, true]) {
      const adjusted = await post(chatBody('gamma-5.4', { user: 'adjust-me' }), stream);
      const text = await adjusted.text();
      if (policy === 'lenient') {
        t.equal(adjusted.status, 200, `answered (stream: ${stream})`);
        t.equal(adjusted.headers.get(ADJUSTED_HEADER), 'max_tokens=clamped:16', `announced (stream: ${stream})`);
      } else {
        t.equal(adjusted.status, 400, `strict: refused (stream: ${stream})`);
        t.match(JSON.parse(text), { error: { param: 'max_tokens', message: 'max_tokens is above this test limit of 16.' } });
      }
    }
    if (policy === 'lenient') {
      const lines = h.logs.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line['msg'] === 'request' && line['adjusted']);
      t.equal(lines.length, 2, 'each adjusted call says so in its log line');
      t.match(lines[0], { level: 30, adjusted: 'max_tokens=clamped:16' });
    }
    await h.close();
  }
});

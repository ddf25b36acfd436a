import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import OpenAI from 'openai';
import t from 'tap';
import { createGammaSimulator } from '../../plugins/vendor-gamma/simulator.js';
import type { SimServer } from '../../src/simulators/sim-server.js';
import { chatBody, GAMMA_UPSTREAM_KEY, raw, startHarness } from '../helpers/harness.js';
import { blackhole, pluginConfig } from '../helpers/ops.js';

const post = (origin: string, key: string, body = chatBody()) =>
  raw(origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });

/** Polls until the simulator holds no open request (the gateway aborted it), or gives up after 2 s. */
async function upstreamReleased(sim: SimServer): Promise<boolean> {
  for (let i = 0; i < 40 && sim.openRequests > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return sim.openRequests === 0;
}

t.test('a hanging upstream: 504 upstream_timeout within the timeout, and the upstream request aborted', async (t) => {
  const h = await startHarness(t, { env: { GATEWAY_UPSTREAM_TIMEOUT_MS: '400' } });
  const { key } = await h.createKey();
  h.gamma.faults.push({ hang: true });
  const started = performance.now();
  const res = await post(h.origin, key);
  const elapsed = performance.now() - started;
  t.equal(res.status, 504);
  t.equal(res.json().error.type, 'upstream_timeout');
  t.equal(res.json().error.code, 'upstream_timeout');
  t.match(res.json().error.message, /did not answer within 0\.4 s.*lower max_tokens/);
  t.ok(elapsed >= 390 && elapsed < 1400, `504 after the 400 ms timeout (${elapsed.toFixed(0)} ms)`);
  t.equal(h.gamma.requests.length, 1, 'no retry: the deadline is spent');
  t.ok(await upstreamReleased(h.gamma), 'the hanging upstream request was aborted');
});

t.test('retries never run past the request deadline', async (t) => {
  const h = await startHarness(t, {
    env: { GATEWAY_UPSTREAM_TIMEOUT_MS: '1200' },
    // A fresh timeout per attempt would answer after 500 + 1200 ms; the deadline answers at 1200.
    configure: pluginConfig('retry', { cadence: [{ delay_ms: 500, jitter_ms: 0 }], min_attempt_ms: 100 }),
  });
  const { key } = await h.createKey();
  h.gamma.faults.push({ status: 503 }, { hang: true });
  const started = performance.now();
  const res = await post(h.origin, key);
  const elapsed = performance.now() - started;
  t.equal(res.status, 504, 'the retry hung');
  t.ok(elapsed < 1500, `answered at the deadline of the whole request, not a fresh timeout per attempt (${elapsed.toFixed(0)} ms)`);
  t.equal(h.gamma.requests.length, 2);
  t.ok(await upstreamReleased(h.gamma), 'the hanging retry was aborted');

  // A retry whose backoff would end too close to the deadline is not made.
  const tight = await startHarness(t, {
    env: { GATEWAY_UPSTREAM_TIMEOUT_MS: '1000' },
    configure: pluginConfig('retry', { cadence: [{ delay_ms: 700, jitter_ms: 0 }], min_attempt_ms: 500 }),
  });
  const other = await tight.createKey();
  tight.gamma.faults.push({ status: 503 });
  t.equal((await post(tight.origin, other.key)).status, 503, '700 ms backoff + 500 ms for the attempt do not fit 1 s');
  t.equal(tight.gamma.requests.length, 1);
});

t.test('a stream that goes silent ends with an error event, and the upstream is aborted', async (t) => {
  const sim = createGammaSimulator({ apiKey: GAMMA_UPSTREAM_KEY, chunkDelayMs: 1500 });
  await sim.listen();
  t.teardown(() => sim.close());
  const h = await startHarness(t, { gamma: sim, env: { GATEWAY_STREAM_IDLE_TIMEOUT_MS: '300' } });
  const { key } = await h.createKey();
  const started = performance.now();
  const stream = await h.client(key).chat.completions.create({ model: 'gamma-5.4', stream: true, messages: [{ role: 'user', content: 'x [[sim:tokens=5]]' }] });
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  const error = await (async () => {
    for await (const chunk of stream) chunks.push(chunk);
  })().catch((e: unknown) => e);
  t.type(error, OpenAI.APIError, 'the stream ends with an error event');
  t.match((error as Error).message, /went silent for 0\.3 s/);
  t.equal(chunks.length, 1, 'the first event was relayed before the silence');
  t.ok(performance.now() - started < 1400, 'ended by the idle timeout, not by the next event');
  t.ok(await upstreamReleased(sim), 'the silent upstream stream was aborted');
});

t.test('a non-streamed body that stalls after its headers: 504, and the upstream aborted', async (t) => {
  let closed = 0;
  const stall: Server = createServer((req, res) => {
    req.resume();
    res.on('close', () => (closed += 1));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"id":"chatcmpl-1",');
  });
  await new Promise<void>((resolve) => stall.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    stall.closeAllConnections();
    stall.close();
  });
  const h = await startHarness(t, {
    env: { GAMMA_BASE_URL: `http://127.0.0.1:${(stall.address() as AddressInfo).port}`, GATEWAY_STREAM_IDLE_TIMEOUT_MS: '300', GATEWAY_RETRY_MAX: '0' },
  });
  const { key } = await h.createKey();
  const started = performance.now();
  const res = await post(h.origin, key);
  t.equal(res.status, 504);
  t.match(res.json().error.message, /went silent for 0\.3 s/);
  t.ok(performance.now() - started < 1400);
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(closed, 1, 'the stalled upstream response was aborted');
});

t.test('an upstream that never accepts the connection: 504 after the connect timeout', async (t) => {
  const origin = await blackhole(t);
  const h = await startHarness(t, {
    env: { GAMMA_BASE_URL: origin, GATEWAY_CONNECT_TIMEOUT_MS: '300', GATEWAY_RETRY_MAX: '0' },
  });
  const { key } = await h.createKey();
  const started = performance.now();
  const res = await post(h.origin, key);
  const elapsed = performance.now() - started;
  t.equal(res.status, 504);
  t.equal(res.json().error.code, 'upstream_timeout');
  t.match(res.json().error.message, /Could not connect to the gamma upstream in time/);
  t.ok(elapsed >= 290 && elapsed < 1300, `after the 300 ms connect timeout (${elapsed.toFixed(0)} ms)`);
  const metrics = await (await fetch(`${h.origin}/metrics`)).text();
  t.match(metrics, /gateway_upstream_errors_total\{family="gamma",code="connect_timeout",deployment="default"\} 1/, 'counted by kind');
});

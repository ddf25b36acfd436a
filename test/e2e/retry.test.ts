import { performance } from 'node:perf_hooks';
import OpenAI from 'openai';
import t from 'tap';
import { createGammaSimulator } from '../../plugins/vendor-gamma/simulator.js';
import { chatBody, GAMMA_UPSTREAM_KEY, raw, startHarness } from '../helpers/harness.js';
import { deadPort, pluginConfig, SHORT_CADENCE } from '../helpers/ops.js';

const post = (origin: string, key: string, body = chatBody()) =>
  raw(origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });

/** Milliseconds between the upstream's consecutive requests. */
const gaps = (at: number[]): number[] => at.slice(1).map((time, i) => time - (at[i] as number));

t.test('one 503 then success: the caller sees 200 after about 500 ms (the spec cadence)', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  h.gamma.faults.push({ status: 503 });
  const started = performance.now();
  const reply = await h.client(key).chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'hi [[sim:tokens=3]]' }] });
  const elapsed = performance.now() - started;
  t.equal(reply.model, 'gamma-5.4');
  t.equal(reply.choices[0]?.message.content, 'Hello from the');
  t.equal(h.gamma.requests.length, 2, 'two upstream attempts');
  const [gap] = gaps(h.gamma.requests.map((r) => r.at));
  // Upper bounds leave room for a busy machine: the gap also holds the gateway's own work.
  t.ok(gap !== undefined && gap >= 250 && gap <= 1000, `first retry after 500 ms ± 250 (was ${gap?.toFixed(0)} ms)`);
  t.ok(elapsed >= 250 && elapsed < 2000, `answered after about 500 ms (${elapsed.toFixed(0)} ms)`);
  const line = h.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'upstream attempt failed, trying again');
  t.match(line, { model: 'gamma-5.4', attempt: 1, code: '503', then: 'retry' }, 'the failed attempt is logged');
  t.ok(line.delay_ms >= 250 && line.delay_ms <= 750);
  const request = h.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'request' && l.path === '/v1/chat/completions');
  t.equal(request.attempts, 2, 'the request log line counts the attempts');
});

t.test('503s all the way: 503 after the full cadence, at most GATEWAY_RETRY_MAX retries', async (t) => {
  const h = await startHarness(t, { env: { GATEWAY_RETRY_MAX: '4' }, configure: pluginConfig('retry', { cadence: SHORT_CADENCE }) });
  const { key } = await h.createKey();
  for (let i = 0; i < 5; i++) h.gamma.faults.push({ status: 503 });
  const started = performance.now();
  const res = await post(h.origin, key);
  const elapsed = performance.now() - started;
  t.equal(res.status, 503);
  t.equal(res.json().error.type, 'unavailable');
  t.equal(res.json().error.message, 'simulated 503', "the last upstream's message");
  t.equal(h.gamma.requests.length, 5, 'the first attempt and 4 retries');
  const observed = gaps(h.gamma.requests.map((r) => r.at));
  SHORT_CADENCE.forEach((step, i) => {
    const gap = observed[i] as number;
    t.ok(
      gap >= step.delay_ms - step.jitter_ms && gap <= step.delay_ms + step.jitter_ms + 250,
      `retry ${i + 1}: ${step.delay_ms} ± ${step.jitter_ms} ms (was ${gap.toFixed(0)})`,
    );
  });
  t.ok(elapsed >= 800, `the whole cadence was waited (${elapsed.toFixed(0)} ms)`);

  // GATEWAY_RETRY_MAX bounds the retries: 2 → three attempts.
  const two = await startHarness(t, { env: { GATEWAY_RETRY_MAX: '2' }, configure: pluginConfig('retry', { cadence: SHORT_CADENCE }) });
  const other = await two.createKey();
  for (let i = 0; i < 4; i++) two.gamma.faults.push({ status: 503 });
  t.equal((await post(two.origin, other.key)).status, 503);
  t.equal(two.gamma.requests.length, 3, 'GATEWAY_RETRY_MAX=2: three attempts');
  t.equal(two.gamma.faults.length, 1, 'the fourth 503 was never asked for');
});

t.test('which failures are retried', async (t) => {
  const h = await startHarness(t, { configure: pluginConfig('retry', { cadence: SHORT_CADENCE }) });
  const { key } = await h.createKey();
  for (const status of [502, 504]) {
    h.gamma.faults.push({ status });
    const before = h.gamma.requests.length;
    t.equal((await post(h.origin, key)).status, 200, `upstream ${status} is retried`);
    t.equal(h.gamma.requests.length - before, 2);
  }
  for (const [status, ours] of [
    [500, 502],
    [400, 400],
    [401, 502],
    [404, 404],
  ] as const) {
    h.gamma.faults.push({ status });
    const before = h.gamma.requests.length;
    t.equal((await post(h.origin, key)).status, ours, `upstream ${status} → ${ours}`);
    t.equal(h.gamma.requests.length - before, 1, `upstream ${status} is not retried`);
  }
  // Every family: alpha's overload (529) and beta's UNAVAILABLE (503) are retried too.
  for (const [sim, model, status] of [
    [h.alpha, 'alpha-haiku-4.5', 529],
    [h.beta, 'beta-3-flash', 503],
  ] as const) {
    sim.faults.push({ status });
    const before = sim.requests.length;
    t.equal((await post(h.origin, key, chatBody(model))).status, 200, `${model}: upstream ${status} is retried`);
    t.equal(sim.requests.length - before, 2);
  }
  // A 429 without Retry-After is passed on at once.
  h.gamma.faults.push({ status: 429 });
  const before = h.gamma.requests.length;
  t.equal((await post(h.origin, key)).status, 429);
  t.equal(h.gamma.requests.length - before, 1, 'a 429 without Retry-After is not retried');
});

t.test('429: retried when its Retry-After fits the deadline, passed through with it when not', async (t) => {
  const h = await startHarness(t, { env: { GATEWAY_UPSTREAM_TIMEOUT_MS: '5000' } });
  const { key } = await h.createKey();

  h.gamma.faults.push({ status: 429, retryAfter: '7' });
  const started = performance.now();
  const limited = await post(h.origin, key);
  t.equal(limited.status, 429);
  t.equal(limited.headers.get('retry-after'), '7', 'Retry-After: 7 reaches the caller');
  t.equal(limited.json().error.code, 'rate_limit_exceeded');
  t.equal(h.gamma.requests.length, 1, '7 s does not fit a 5 s deadline: not retried');
  t.ok(performance.now() - started < 1000, 'answered at once');

  h.gamma.faults.push({ status: 429, retryAfter: '0.3' });
  const waited = performance.now();
  const ok = await post(h.origin, key);
  t.equal(ok.status, 200, 'a Retry-After that fits is waited and retried');
  const [gap] = gaps(h.gamma.requests.slice(-2).map((r) => r.at));
  t.ok(gap !== undefined && gap >= 300 && gap < 800, `after the upstream's 0.3 s (${gap?.toFixed(0)} ms)`);
  t.ok(performance.now() - waited >= 300);
});

t.test('no retry once the first streamed byte reached the caller', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const stream = await h.client(key).chat.completions.create({
    model: 'gamma-5.4',
    stream: true,
    messages: [{ role: 'user', content: 'go [[sim:tokens=8]] [[sim:reset_after=3]]' }],
  });
  const seen: string[] = [];
  const error = await (async () => {
    for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
  })().catch((e: unknown) => e);
  t.type(error, OpenAI.APIError, 'the stream ends with an error event');
  t.ok(seen.length >= 1, 'bytes had reached the caller');
  t.equal(h.gamma.requests.length, 1, 'the broken stream was not retried');
});

t.test('a connection error is retried: the upstream comes up during the backoff', async (t) => {
  const port = await deadPort();
  const sim = createGammaSimulator({ apiKey: GAMMA_UPSTREAM_KEY });
  t.teardown(() => sim.close());
  // The harness's own simulator stays unused: the family points at the dead port.
  const h = await startHarness(t, { env: { GAMMA_BASE_URL: `http://127.0.0.1:${port}` } });
  const { key } = await h.createKey();
  const pending = post(h.origin, key);
  await new Promise((resolve) => setTimeout(resolve, 100));
  await sim.listen(port);
  const res = await pending;
  t.equal(res.status, 200, 'answered after the retry');
  t.equal(sim.requests.length, 1, 'the refused attempt never reached a server; the retry did');
  const line = h.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'upstream attempt failed, trying again');
  t.equal(line?.code, 'connect', 'logged as a connection error');
});

t.test('a caller that leaves during the backoff ends the call: no further attempt', async (t) => {
  const h = await startHarness(t, { configure: pluginConfig('retry', { cadence: [{ delay_ms: 600, jitter_ms: 0 }] }) });
  const { key } = await h.createKey();
  h.gamma.faults.push({ status: 503 });
  const abort = new AbortController();
  const pending = fetch(`${h.origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody(),
    signal: abort.signal,
  }).catch((e: unknown) => e);
  await new Promise((resolve) => setTimeout(resolve, 200));
  abort.abort();
  t.type(await pending, Error);
  await new Promise((resolve) => setTimeout(resolve, 700));
  t.equal(h.gamma.requests.length, 1, 'no retry for a caller that went away');
});

t.test('sibling fallback on 503: answered and billed as the sibling', async (t) => {
  // A backoff long enough to tell apart from the immediate hand-over to the sibling.
  const cadence = [{ delay_ms: 600, jitter_ms: 0 }];
  const fallback = pluginConfig('retry', { cadence, fallback: { gamma: { 'gamma-5.4': 'gamma-5.2', 'Gamma-5-3-Code': 'gamma-5.2-code' } } });
  const h = await startHarness(t, { configure: fallback });
  const { key } = await h.createKey();
  const client = h.client(key);

  h.gamma.faults.push({ status: 503 });
  const reply = await client.chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'hi [[sim:tokens=4]]' }] });
  t.equal(reply.model, 'gamma-5.2', 'the reply names the model that answered');
  t.same(
    h.gamma.requests.map((r) => JSON.parse(r.body).model),
    ['gamma-5.4', 'gamma-5.2'],
    'the sibling was asked second',
  );
  const [handOver] = gaps(h.gamma.requests.map((r) => r.at));
  t.ok(handOver !== undefined && handOver < 300, `no backoff before the sibling (${handOver?.toFixed(0)} ms)`);

  // Streamed: every chunk names the sibling.
  h.gamma.faults.push({ status: 503 });
  const stream = await client.chat.completions.create({ model: 'gamma-5-3-code', stream: true, messages: [{ role: 'user', content: 'go [[sim:tokens=3]]' }] });
  const models = new Set<string>();
  for await (const chunk of stream) models.add(chunk.model);
  t.same([...models], ['gamma-5.2-code'], 'alias resolved, then the sibling answered the stream');

  // Billing follows the answering model.
  const metrics = await (await fetch(`${h.origin}/metrics`)).text();
  t.match(metrics, /gateway_fallbacks_total\{family="gamma",from="gamma-5.4",to="gamma-5.2"\} 1/);
  t.match(metrics, /gateway_tokens_total\{model="gamma-5.2",family="gamma",kind="completion"\} 4/);
  t.notMatch(metrics, /gateway_tokens_total\{model="gamma-5.4"/, 'nothing billed to the model that failed');

  // Other failures than 503 do not fall back: 502 is retried on the same model.
  h.gamma.faults.push({ status: 502 });
  const retried = await client.chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] });
  t.equal(retried.model, 'gamma-5.4');

  // One fallback per call; a 503 from the sibling is retried on the sibling.
  h.gamma.faults.push({ status: 503 }, { status: 503 });
  const twice = await client.chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] });
  t.equal(twice.model, 'gamma-5.2');
  t.same(
    h.gamma.requests.slice(-3).map((r) => JSON.parse(r.body).model),
    ['gamma-5.4', 'gamma-5.2', 'gamma-5.2'],
  );

  // A key scoped away from the sibling is never answered by it.
  const scoped = await h.createKey({ models: ['gamma-5.4'] });
  h.gamma.faults.push({ status: 503 });
  const own = await h.client(scoped.key).chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] });
  t.equal(own.model, 'gamma-5.4', 'retried on its own model instead');

  // A model without a configured sibling just retries.
  h.gamma.faults.push({ status: 503 });
  const plain = await client.chat.completions.create({ model: 'gamma-5.1-code', messages: [{ role: 'user', content: 'x' }] });
  t.equal(plain.model, 'gamma-5.1-code');
});

t.test('fallback configuration mistakes stop the gateway with the path named', async (t) => {
  for (const [fallback, message] of [
    [
      { gamma: { 'gamma-5.4': 'alpha-sonnet-4.6' } },
      /gateway\.yaml: \/plugins\/\d+\/config\/fallback\/gamma\/gamma-5.4: .*must both belong to the gamma family/,
    ],
    [{ gamma: { 'gamma-9': 'gamma-5.2' } }, /unknown model 'gamma-9'/],
    [{ gamma: { 'gamma-5.4': 'gamma-5-4' } }, /its own sibling/],
  ] as const) {
    await t.rejects(startHarness(t, { configure: pluginConfig('retry', { fallback }) }), { message });
  }
  await t.rejects(startHarness(t, { configure: pluginConfig('retry', { fallback: { delta: {} } }) }), {
    message: /fallback\/delta names a family no enabled vendor plugin serves/,
  });
});

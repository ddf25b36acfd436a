import t from 'tap';
import { chatBody, raw, startHarness } from '../helpers/harness.js';
import { parseMetrics, pluginConfig } from '../helpers/ops.js';

const series = (name: string, labels: Record<string, string>): string =>
  `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(',')}}`;

t.test('/metrics after traffic: counts per model, histograms, tokens, cost, retries, errors', async (t) => {
  // A fixed 400 ms backoff, so the test can tell it apart from the gateway's own overhead.
  const h = await startHarness(t, { configure: pluginConfig('retry', { cadence: [{ delay_ms: 400, jitter_ms: 0 }] }) });
  const { key } = await h.createKey();
  const client = h.client(key);

  for (let i = 0; i < 3; i++) {
    await client.chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'Say hi [[sim:tokens=5]]' }] });
  }
  for (let i = 0; i < 2; i++) {
    const stream = await client.chat.completions.create({ model: 'gamma-5.2', stream: true, messages: [{ role: 'user', content: 'x [[sim:tokens=4]]' }] });
    for await (const _chunk of stream);
  }
  h.gamma.faults.push({ status: 503 });
  await client.chat.completions.create({ model: 'gamma-5.3-code', messages: [{ role: 'user', content: 'x [[sim:tokens=2]]' }] });
  h.gamma.faults.push({ status: 400 });
  t.equal(
    (
      await raw(h.origin, 'POST', '/v1/chat/completions', {
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: chatBody('gamma-5.1-code'),
      })
    ).status,
    400,
  );
  t.equal((await raw(h.origin, 'POST', '/v1/chat/completions', { body: chatBody() })).status, 401);
  t.equal(
    (
      await raw(h.origin, 'POST', '/v1/chat/completions', {
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: chatBody('gamma-9'),
      })
    ).status,
    404,
  );

  const res = await fetch(`${h.origin}/metrics`);
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const m = parseMetrics(text);
  const gamma54 = { model: 'gamma-5.4', family: 'gamma' };

  t.equal(m.get(series('gateway_requests_total', { ...gamma54, endpoint: 'chat.completions', status_class: '2xx' })), 3);
  t.equal(m.get(series('gateway_requests_total', { model: 'gamma-5.2', family: 'gamma', endpoint: 'chat.completions', status_class: '2xx' })), 2);
  t.equal(m.get(series('gateway_requests_total', { model: 'gamma-5.1-code', family: 'gamma', endpoint: 'chat.completions', status_class: '4xx' })), 1);
  t.equal(
    m.get(series('gateway_requests_total', { model: 'none', family: 'none', endpoint: 'chat.completions', status_class: '4xx' })),
    2,
    '401 and unknown model',
  );

  // Request duration: 3 observations, buckets from 5 ms to 120 s.
  t.equal(m.get(series('gateway_request_duration_seconds_count', { ...gamma54, endpoint: 'chat.completions' })), 3);
  t.equal(m.get(series('gateway_request_duration_seconds_bucket', { le: '120', ...gamma54, endpoint: 'chat.completions' })), 3);
  t.ok(m.has(series('gateway_request_duration_seconds_bucket', { le: '0.005', ...gamma54, endpoint: 'chat.completions' })));
  t.ok((m.get(series('gateway_request_duration_seconds_sum', { ...gamma54, endpoint: 'chat.completions' })) ?? 0) > 0);
  // Time to first token: streamed calls only.
  t.equal(m.get(series('gateway_time_to_first_token_seconds_count', { model: 'gamma-5.2', family: 'gamma' })), 2);
  t.notOk(m.has(series('gateway_time_to_first_token_seconds_count', gamma54)), 'no TTFT for non-streamed calls');
  // Overhead: every call that reached an upstream (3 + 2 + 1 + 1), small next to the whole.
  t.equal(m.get(series('gateway_overhead_seconds_count', { family: 'gamma' })), 7);
  t.ok((m.get(series('gateway_overhead_seconds_sum', { family: 'gamma' })) ?? 0) > 0);
  const retried = m.get(series('gateway_request_duration_seconds_sum', { model: 'gamma-5.3-code', family: 'gamma', endpoint: 'chat.completions' })) ?? 0;
  t.ok(retried >= 0.4, 'the retried call took its 400 ms backoff');
  t.equal(m.get(series('gateway_overhead_seconds_bucket', { le: '0.25', family: 'gamma' })), 7, 'but no overhead observation holds the backoff');

  // Tokens and cost by the model that answered: prompt = words of the prompt, completion = pieces.
  t.equal(m.get(series('gateway_tokens_total', { ...gamma54, kind: 'completion' })), 15);
  t.equal(m.get(series('gateway_tokens_total', { ...gamma54, kind: 'prompt' })), 9);
  t.equal(m.get(series('gateway_tokens_total', { model: 'gamma-5.2', family: 'gamma', kind: 'completion' })), 8);
  t.equal(m.get(series('gateway_tokens_total', { model: 'gamma-5.3-code', family: 'gamma', kind: 'completion' })), 2, 'the retried call billed once');
  t.equal(m.get(series('gateway_charged_cost_nanodollars_total', gamma54)), 15 * 2500, '15 tokens at $2.50 per 1M');
  t.equal(m.get(series('gateway_charged_cost_nanodollars_total', { model: 'gamma-5.2', family: 'gamma' })), 8 * 2000);

  // Attempts, retries and upstream errors.
  t.equal(m.get(series('gateway_upstream_attempts_total', { model: 'gamma-5.3-code', family: 'gamma', deployment: 'default' })), 2);
  t.equal(m.get(series('gateway_upstream_retries_total', { model: 'gamma-5.3-code', family: 'gamma', reason: '503', deployment: 'default' })), 1);
  t.equal(m.get(series('gateway_upstream_errors_total', { family: 'gamma', code: '503', deployment: 'default' })), 1);
  t.equal(m.get(series('gateway_upstream_errors_total', { family: 'gamma', code: '400', deployment: 'default' })), 1);
  t.equal(m.get('gateway_requests_in_flight'), 0);

  // Node's default process metrics.
  t.ok(m.has('process_cpu_user_seconds_total'));
  t.ok(m.has('nodejs_heap_size_total_bytes'));

  // Bounded labels: never a key, a path or a caller's model string.
  t.notMatch(text, key);
  t.notMatch(text, '/v1/');
  t.notMatch(text, 'gamma-9');
});

t.test('/metrics on a port of its own, behind a bearer token', async (t) => {
  const token = 'metrics-token-0123456789';
  const h = await startHarness(t, { configure: pluginConfig('metrics', { port: 0, token }) });
  const line = h.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'metrics listening on their own port');
  const origin = line?.origin as string;
  t.match(origin, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.equal((await fetch(`${h.origin}/metrics`)).status, 404, 'not on the gateway port');
  const none = await fetch(`${origin}/metrics`);
  t.equal(none.status, 401);
  t.match(await none.json(), { error: { type: 'invalid_api_key' } });
  t.equal((await fetch(`${origin}/metrics`, { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status, 401);
  const ok = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${token}` } });
  t.equal(ok.status, 200);
  t.match(await ok.text(), /# TYPE gateway_requests_total counter/);
  t.equal((await fetch(`${origin}/status`)).status, 404, 'only /metrics there');
  t.notMatch(h.logs.join('\n'), token, 'the token is never logged');
});

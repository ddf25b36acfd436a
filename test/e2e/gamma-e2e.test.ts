import { createServer, type AddressInfo } from 'node:net';
import OpenAI from 'openai';
import t from 'tap';
import { GAMMA_UPSTREAM_KEY, raw, rawHttp, startHarness } from '../helpers/harness.js';

t.test('gamma through the official client: plain, streamed, aliases, tools, embeddings, legacy', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const client = h.client(key);

  const plain = await client.chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'Say hi [[sim:tokens=5]]' }] });
  t.match(plain.id, /^chatcmpl-/);
  t.equal(plain.object, 'chat.completion');
  t.equal(plain.model, 'gamma-5.4');
  t.equal(plain.choices[0]?.message.content, 'Hello from the simulated upstream;');
  t.equal(plain.choices[0]?.finish_reason, 'stop');
  t.same(plain.usage, { prompt_tokens: 3, completion_tokens: 5, total_tokens: 8 }, 'usage as the upstream counted it');

  const alias = await client.chat.completions.create({ model: 'Gamma-5-1-Code', messages: [{ role: 'user', content: 'x' }] });
  t.equal(alias.model, 'gamma-5.1-code', 'alias answered as canonical');
  const upstreamBody = JSON.parse(h.gamma.requests.at(-1)?.body ?? '{}');
  t.equal(upstreamBody.model, 'gamma-5.1-code', 'the upstream is asked for its own model name');

  const limited = await client.chat.completions.create({ model: 'gamma-5.4', max_tokens: 3, messages: [{ role: 'user', content: 'x' }] });
  t.equal(limited.choices[0]?.finish_reason, 'length');
  t.equal(limited.usage?.completion_tokens, 3);

  // Streamed, without the usage chunk: the gateway asks the upstream for usage anyway and strips it.
  const stream = await client.chat.completions.create({ model: 'gamma-5.2', stream: true, messages: [{ role: 'user', content: 'go [[sim:tokens=4]]' }] });
  const chunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  const asked = JSON.parse(h.gamma.requests.at(-1)?.body ?? '{}');
  t.same(asked.stream_options, { include_usage: true }, 'usage is always requested upstream');
  t.equal(chunks[0]?.choices[0]?.delta.role, 'assistant', 'role delta first');
  t.equal(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), 'Hello from the simulated');
  t.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'stop');
  t.ok(
    chunks.every((c) => c.choices.length === 1),
    'no usage-only chunk when not asked',
  );
  t.ok(
    chunks.every((c) => !('usage' in c)),
    'no usage field at all when not asked',
  );
  t.ok(chunks.every((c) => c.model === 'gamma-5.2' && c.id === chunks[0]?.id));

  const withUsage = await client.chat.completions.create({
    model: 'gamma-5.2',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'go [[sim:tokens=4]]' }],
  });
  const usageChunks: OpenAI.ChatCompletionChunk[] = [];
  for await (const chunk of withUsage) usageChunks.push(chunk);
  const last = usageChunks.at(-1);
  t.same(last?.choices, [], 'the usage chunk has no choices');
  t.same(last?.usage, { prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 });

  // The stream helper rebuilds a tool call from the fragments.
  const tools: OpenAI.ChatCompletionTool[] = [
    { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
  ];
  const runner = client.chat.completions.stream({ model: 'gamma-5.4', tools, messages: [{ role: 'user', content: 'Weather in Oslo?' }] });
  const final = await runner.finalChatCompletion();
  t.equal(final.choices[0]?.finish_reason, 'tool_calls');
  t.equal(final.choices[0]?.message.tool_calls?.[0]?.type === 'function' && final.choices[0].message.tool_calls[0].function.name, 'get_weather');
  t.same(JSON.parse((final.choices[0]?.message.tool_calls?.[0] as { function: { arguments: string } }).function.arguments), { city: 'sample' });

  // Embeddings: the client asks for base64 by default and decodes it; floats must come out right.
  const embedded = await client.embeddings.create({ model: 'gamma-5.4', input: ['alpha', 'beta'] });
  t.equal(embedded.data.length, 2);
  t.equal(embedded.data[0]?.embedding.length, 8);
  t.ok(embedded.data[0]?.embedding.every((v) => Math.abs(v) <= 1));
  const floats = await client.embeddings.create({ model: 'gamma-5.4', input: 'alpha', encoding_format: 'float' });
  t.same(floats.data[0]?.embedding, embedded.data[0]?.embedding, 'base64 and float encodings agree');
  t.equal(JSON.parse(h.gamma.requests.at(-1)?.body ?? '{}').model, 'gamma-embedding-3-small', 'routed to the native embedding model');
  t.equal(floats.model, 'gamma-5.4');

  const legacy = await client.completions.create({ model: 'gamma-5.4', prompt: 'Once upon', max_tokens: 4 });
  t.equal(legacy.object, 'text_completion');
  t.match(legacy.id, /^cmpl-/);
  t.equal(legacy.choices[0]?.text, 'Hello from the simulated');
  t.equal(legacy.usage?.completion_tokens, 4);
});

t.test('what reaches the upstream: its own key, never the caller key or hop-by-hop headers', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const res = await rawHttp(h.origin, 'POST', '/v1/chat/completions', {
    headers: {
      authorization: `Bearer ${key}`,
      'content-type': 'application/json',
      connection: 'keep-alive, x-private-hop',
      'keep-alive': 'timeout=5',
      'x-private-hop': 'secret-hop',
      'proxy-authorization': 'Basic abc',
      te: 'trailers',
      upgrade: 'h2c',
      'x-api-key': 'caller-vendor-key',
      'x-goog-api-key': 'caller-goog-key',
      'x-qua-token': 'qua-previous-gateway',
      cookie: 'session=1',
      'x-stainless-lang': 'js',
    },
    body: JSON.stringify({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] }),
  });
  t.equal(res.status, 200);
  const seen = h.gamma.requests.at(-1);
  t.ok(seen, 'the upstream got the request');
  const headers = seen?.headers ?? {};
  t.equal(headers.authorization, `Bearer ${GAMMA_UPSTREAM_KEY}`, "the upstream gets the gateway's own credential");
  for (const name of ['keep-alive', 'x-private-hop', 'proxy-authorization', 'te', 'upgrade', 'x-api-key', 'x-goog-api-key', 'x-qua-token', 'cookie']) {
    t.notOk(name in headers, `${name} is not forwarded`);
  }
  t.notMatch(JSON.stringify(headers), key, 'the caller key appears nowhere upstream');
  t.equal(headers['x-stainless-lang'], 'js', 'ordinary headers pass');
  t.notOk(res.headers['x-request-id'], 'no request-id header is emitted');
});

t.test('upstream failures become our envelope', async (t) => {
  // A port that refuses connections.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const deadPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));

  // The mapping of one upstream answer, so no retries here (test/e2e/retry.test.ts has them).
  const h = await startHarness(t, { env: { GATEWAY_RETRY_MAX: '0' } });
  const { key } = await h.createKey();
  const client = h.client(key);

  h.gamma.faults.push({ status: 429, retryAfter: '7' });
  const limited = await raw(h.origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] }),
  });
  t.equal(limited.status, 429);
  t.equal(limited.headers.get('retry-after'), '7', 'Retry-After passes through');
  t.equal(limited.json().error.type, 'rate_limited');
  t.equal(limited.json().error.code, 'rate_limit_exceeded');
  t.equal(limited.json().error.message, 'simulated 429', "the upstream's message is kept");

  for (const [upstream, ours, type] of [
    [503, 503, 'unavailable'],
    [500, 502, 'upstream_error'],
    [502, 502, 'upstream_error'],
    [504, 504, 'upstream_timeout'],
    [400, 400, 'invalid_request'],
    [401, 502, 'upstream_error'],
  ] as const) {
    h.gamma.faults.push({ status: upstream });
    const error = await client.chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    t.type(error, OpenAI.APIError, `upstream ${upstream} surfaces as an APIError`);
    t.equal((error as InstanceType<typeof OpenAI.APIError>).status, ours, `upstream ${upstream} → ${ours}`);
    t.equal((error as InstanceType<typeof OpenAI.APIError>).type, type);
  }
  h.gamma.faults.push({ status: 200, rawBody: '<html>not json</html>' });
  const garbage = await client.chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
  t.equal((garbage as InstanceType<typeof OpenAI.APIError>).status, 502, 'non-JSON 200 → 502');

  // Mid-stream reset: the caller's stream ends with an error event, not a hang.
  const stream = await client.chat.completions.create({ model: 'gamma-5.4', stream: true, messages: [{ role: 'user', content: 'x [[sim:reset_after=3]]' }] });
  const seen: string[] = [];
  const streamError = await (async () => {
    for await (const chunk of stream) seen.push(chunk.choices[0]?.delta.content ?? '');
  })().catch((e: unknown) => e);
  t.type(streamError, OpenAI.APIError, 'the stream ends with an error event');
  t.match((streamError as Error).message, /broke off/);
  t.ok(seen.length >= 1, 'the chunks before the reset were relayed');

  // An upstream that refuses connections: 502 JSON, and the gateway keeps serving.
  const dead = await startHarness(t, { env: { GAMMA_BASE_URL: `http://127.0.0.1:${deadPort}`, GATEWAY_RETRY_MAX: '0' } });
  const deadKey = await dead.createKey();
  const refused = await raw(dead.origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${deadKey.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] }),
  });
  t.equal(refused.status, 502);
  t.equal(refused.json().error.type, 'upstream_error');
  t.equal(refused.json().error.code, 'bad_gateway');
  t.match(refused.json().error.message, /ECONNREFUSED/);
  t.notMatch(refused.text, GAMMA_UPSTREAM_KEY);
  const models = await raw(dead.origin, 'GET', '/v1/models');
  t.equal(models.status, 200, 'still serving after the refused upstream');

  // A family whose vendor plugin is not in the chain: 503 naming the missing upstream.
  const partial = await startHarness(t, {
    plugins: ['ingress-chat', 'auth', 'model-normalise', 'scope', 'vendor-gamma'].map((name) => ({ name, enabled: true, config: {} })),
  });
  const partialClient = partial.client((await partial.createKey()).key);
  const alpha = await partialClient.chat.completions.create({ model: 'alpha-sonnet-4-6', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
  t.equal((alpha as InstanceType<typeof OpenAI.APIError>).status, 503);
  t.match((alpha as Error).message, /alpha family/);
});

import Anthropic from '@anthropic-ai/sdk';
import { request } from 'node:http';
import t from 'tap';
import { ALPHA_UPSTREAM_KEY, chatBody, raw, startHarness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';
import { hello, lastUpstreamBody, MESSAGES_MODELS, sdk } from '../helpers/messages-client.js';

/** Keys, refusals and Claude-Code-like traffic on the Messages endpoints (docs/formats/messages.md#access). */

type APIError = InstanceType<typeof Anthropic.APIError>;
const json = { 'content-type': 'application/json' };
const body = (model = 'gamma-5.4', extra: Record<string, unknown> = {}): string => JSON.stringify({ model, max_tokens: 50, messages: hello, ...extra });

/** A POST whose headers may repeat (fetch joins them), answered as status and parsed JSON. */
function post(origin: string, path: string, headers: Record<string, string | string[]>, text: string): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = request(`${origin}${path}`, { method: 'POST' }, (res) => {
      let out = '';
      res.on('data', (chunk: Buffer) => (out += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(out) }));
    });
    for (const [name, value] of Object.entries(headers)) req.setHeader(name, value);
    req.on('error', reject).end(text);
  });
}

t.test('the key as x-api-key or as a Bearer token; both only when they agree; 401 in the Messages shape', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const other = (await h.createKey()).key;
  const expect = async (
    headers: Record<string, string | string[]>,
    status: number,
    message: RegExp | null,
    what: string,
    path = '/v1/messages',
    sent = body(),
  ) => {
    const res = await post(h.origin, path, { ...json, ...headers }, sent);
    t.equal(res.status, status, what);
    if (message) t.match(res.json, { type: 'error', error: { type: 'authentication_error', code: 'invalid_api_key', param: null, message } }, `${what}: body`);
  };
  await expect({ 'x-api-key': key }, 200, null, 'x-api-key');
  await expect({ authorization: `Bearer ${key}` }, 200, null, 'Bearer');
  await expect({ 'x-api-key': key, authorization: `Bearer ${key}` }, 200, null, 'both, the same key (an apiKeyHelper sends both)');
  await expect(
    { 'x-api-key': key },
    200,
    null,
    'x-api-key on count_tokens',
    '/v1/messages/count_tokens',
    JSON.stringify({ model: 'gamma-5.4', messages: hello }),
  );
  await expect({}, 401, /^No API key: send x-api-key: sl-… or Authorization: Bearer sl-…\.$/, 'no key');
  await expect({ 'x-api-key': `sl-${'A'.repeat(32)}` }, 401, /^Invalid API key\.$/, 'an unknown key');
  await expect({ 'x-api-key': 'sk-ant-abc' }, 401, /belong to an upstream model vendor/, "a vendor's key");
  await expect({ 'x-api-key': key, authorization: `Bearer ${other}` }, 401, /carry different keys/, 'two different keys');
  await expect({ 'x-api-key': [key, key] }, 401, /^Send exactly one x-api-key header\.$/, 'x-api-key twice');
  await expect({ 'x-api-key': key, authorization: 'Basic eDp5' }, 401, /Bearer scheme/, 'another scheme beside x-api-key');
  await expect({ 'x-goog-api-key': key }, 401, /x-goog-api-key header is not accepted; send the key as x-api-key/, 'a foreign credential header');
  const chat = await raw(h.origin, 'POST', '/v1/chat/completions', { headers: { ...json, 'x-api-key': key }, body: chatBody() });
  t.match([chat.status, chat.json().error.message], [401, /x-api-key header is not accepted/], 'x-api-key stays refused where the format does not take it');

  t.equal(
    (await sdk(h, null, { defaultHeaders: { 'x-api-key': key } }).messages.create({ model: 'beta-3-flash', max_tokens: 5, messages: hello })).type,
    'message',
    'the SDK with x-api-key',
  );
  t.equal(
    (await sdk(h, null, { authToken: key }).messages.create({ model: 'beta-3-flash', max_tokens: 5, messages: hello })).type,
    'message',
    'the SDK with authToken',
  );
  t.type(
    await sdk(h, `sl-${'B'.repeat(32)}`)
      .messages.create({ model: 'beta-3-flash', max_tokens: 5, messages: hello })
      .catch((e: unknown) => e),
    Anthropic.AuthenticationError,
  );
  t.notOk(
    h.logs.some((line) => line.includes(key)),
    'no key in any log line',
  );
});

t.test('403, 402, 429, 404 and 400 in the Messages error shape, with our code and param', async (t) => {
  const h = await startHarness(t);
  const expect = async (key: string, text: string, status: number, error: Record<string, unknown>, what: string) => {
    const res = await post(h.origin, '/v1/messages', { ...json, 'x-api-key': key }, text);
    t.equal(res.status, status, what);
    t.match(res.json, { type: 'error', error: { message: String, ...error } }, `${what}: body`);
    return res;
  };
  const scoped = (await h.createKey({ models: ['gamma-5.2'] })).key;
  await expect(scoped, body('alpha-sonnet-4.6'), 403, { type: 'permission_error', code: 'model_not_allowed', param: 'model' }, 'a model outside the allowlist');
  const capped = (await h.createKey({ monthly_ceiling_usd: '0.00001' })).key;
  await expect(
    capped,
    body('alpha-sonnet-4.6', { max_tokens: 64000 }),
    402,
    { type: 'billing_error', code: 'monthly_cap_exceeded', param: null },
    'the spend ceiling',
  );
  const limited = (await h.createKey({ rpm_limit: 1 })).key;
  t.equal((await post(h.origin, '/v1/messages', { ...json, 'x-api-key': limited }, body())).status, 200, 'the first call of the minute');
  const second = await raw(h.origin, 'POST', '/v1/messages', { headers: { ...json, 'x-api-key': limited }, body: body() });
  t.match(
    [second.status, second.json().error, Number(second.headers.get('retry-after'))],
    [429, { type: 'rate_limit_error', code: 'rate_limit_exceeded' }, Number],
    'the rate cap, with Retry-After',
  );
  const free = (await h.createKey()).key;
  await expect(free, body('alpha-opus-9'), 404, { type: 'not_found_error', code: 'model_not_found', param: 'model' }, 'an unknown model');
  await expect(
    free,
    body('gamma-5.4', { messages: [{ role: 'user', content: [{ type: 'tool_result', content: 'x' }] }] }),
    400,
    { type: 'invalid_request_error', code: 'invalid_request', param: 'messages[0].content[0].tool_use_id' },
    'the schema',
  );
  const topK = await raw(h.origin, 'POST', '/v1/messages', { headers: { ...json, 'x-api-key': free }, body: body('gamma-5.4', { top_k: 5 }) });
  t.same([topK.status, topK.headers.get('x-gateway-adjusted')], [200, 'top_k=dropped'], 'what a family cannot do, answered without it and said so');
  await expect(
    free,
    body('gamma-5.4', { container: 'c_1' }),
    400,
    { type: 'invalid_request_error', param: 'container' },
    'what the neutral request cannot carry',
  );
  await expect(
    free,
    body('alpha-sonnet-4.6', { messages: [{ role: 'user', content: 'x [[sim:status=429]]' }] }),
    429,
    { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
    "alpha's own 429, through the passthrough",
  );
  const sdkError = (await sdk(h, scoped)
    .messages.create({ model: 'alpha-sonnet-4.6', max_tokens: 5, messages: hello })
    .catch((e: unknown) => e)) as APIError;
  t.type(sdkError, Anthropic.PermissionDeniedError, 'the SDK raises its own class');
  t.match(sdkError.error, { error: { type: 'permission_error', code: 'model_not_allowed' } });
});

const BETAS = 'claude-code-20250219,oauth-2025-04-20,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14,context-1m-2025-08-07';

/** What Claude Code sends: system blocks with cache_control, a system-role message mid-conversation, tool history, metadata.user_id. */
function claudeCodeBody(model: string): Anthropic.Beta.MessageCreateParamsStreaming {
  return {
    model,
    max_tokens: 8192,
    stream: true,
    system: [
      { type: 'text', text: 'You are Claude Code.', cache_control: { type: 'ephemeral' } },
      { type: 'text', text: 'Be concise.' },
    ],
    tools: [
      {
        name: 'Read',
        description: 'Read a file',
        input_schema: { type: 'object', properties: { path: { type: 'string' } } },
        cache_control: { type: 'ephemeral' },
      },
    ],
    metadata: { user_id: 'user_1234_account__session_abcd' },
    thinking: { type: 'enabled', budget_tokens: 4096 },
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'Read the README' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01', name: 'Read', input: { path: 'README.md' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_01', content: '# Model gateway', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: 'It is a gateway.' },
      { role: 'system', content: 'The user switched to plan mode.' },
      { role: 'user', content: 'Summarise it' },
    ] as Anthropic.Beta.BetaMessageParam[],
  };
}

t.test('Claude-Code-like requests (beta namespace, ?beta=true, both key headers, several betas) for every family', async (t) => {
  const h = await startHarness(t);
  const { key, id } = await h.createKey();
  const client = sdk(h, key, { defaultHeaders: { 'x-api-key': key } });
  for (const model of MESSAGES_MODELS) {
    const sent = claudeCodeBody(model);
    const events: string[] = [];
    const stream = client.beta.messages.stream({ ...sent, betas: BETAS.split(',') });
    stream.on('streamEvent', (event) => events.push(event.type));
    const final = await stream.finalMessage();
    // The simulators call the first tool offered when the last turn is not a tool result; gamma shows no thinking.
    const thought = model === 'gamma-5.4' ? [] : [{ type: 'thinking', signature: /./ }];
    t.match(final, { stop_reason: 'tool_use', content: [...thought, { type: 'tool_use', name: 'Read' }] }, `${model}: answered`);
    t.equal(events.at(-1), 'message_stop');
    const upstream = lastUpstreamBody(h[model.split('-')[0] as 'alpha' | 'beta' | 'gamma']);
    if (model === 'alpha-sonnet-4.6') {
      t.same(upstream, JSON.parse(JSON.stringify(sent)), 'alpha: the body as sent');
      const headers = h.alpha.requests.at(-1)?.headers ?? {};
      t.same(
        [headers['anthropic-beta'], headers['x-api-key'], headers.authorization],
        ['claude-code-20250219,interleaved-thinking-2025-05-14,fine-grained-tool-streaming-2025-05-14', ALPHA_UPSTREAM_KEY, undefined],
        "alpha: price-neutral betas, the gateway's key",
      );
      t.equal(h.alpha.requests.at(-1)?.path, '/v1/messages', 'alpha: the vendor path');
    } else if (model === 'gamma-5.4') {
      t.match(
        upstream,
        {
          messages: [{ role: 'system', content: 'You are Claude Code.\n\nBe concise.\n\nThe user switched to plan mode.' }],
          user: 'user_1234_account__session_abcd',
          reasoning_effort: 'medium',
        },
        'gamma: every system text folded in order, the end user, the effort',
      );
    } else {
      t.same(
        (upstream['systemInstruction'] as { parts: unknown }).parts,
        [{ text: 'You are Claude Code.' }, { text: 'Be concise.' }, { text: 'The user switched to plan mode.' }],
        'beta: every system text folded in order',
      );
    }
  }
  const dropped = h.logs.filter((line) => line.includes('anthropic-beta value dropped')).map((line) => (JSON.parse(line) as { beta: string }).beta);
  t.same(dropped.sort(), ['context-1m-2025-08-07', 'oauth-2025-04-20'], 'the dropped betas warned once each');
  t.same(await client.beta.messages.countTokens({ model: 'alpha-sonnet-4.6', messages: hello }), { input_tokens: 2 }, 'count_tokens?beta=true');
  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  t.same(
    ledger.rows(id).map((row) => [row.model, row.endpoint, row.stream, row.outcome]),
    [...MESSAGES_MODELS.map((m) => [m, 'messages', 1, 'ok']), ['alpha-sonnet-4.6', 'messages.count_tokens', 0, 'ok']],
  );
});

import Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { raw, startHarness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';
import { hello, lastUpstreamBody, MESSAGES_MODELS, sdk } from '../helpers/messages-client.js';

/**
 * The Messages format end to end: the official SDK pointed at the gateway's origin, for one model
 * of each family (alpha passed through, beta and gamma translated), against the simulators.
 * Simulator counts (src/simulators/reply-plan.ts): input = words of the prompt, output = text
 * pieces (12 by default) + 10 per tool call.
 */

const TEXT = 'Hello from the simulated upstream; this reply is deterministic and counted word';
const THOUGHT = 'Considering the request step by step.';
const WEATHER: Anthropic.Tool = {
  name: 'get_weather',
  description: 'Current weather',
  input_schema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
/** 12 output tokens × the charged price per token: $1.50, $0.038 and $2.50 per 1M. */
const TWELVE_TOKENS_NANOS: Record<string, number> = { 'alpha-sonnet-4.6': 18_000, 'beta-3-flash': 456, 'gamma-5.4': 30_000 };
/** Gamma has no count of its own: "Hello there" is 11 characters, one token per 4, rounded up. */
const HELLO_COUNT: Record<string, number> = { 'alpha-sonnet-4.6': 2, 'beta-3-flash': 2, 'gamma-5.4': 3 };

t.test('every family through the official SDK: create, stream, tools over two turns, token count, ledger', async (t) => {
  const h = await startHarness(t);
  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  for (const model of MESSAGES_MODELS) {
    const { key, id } = await h.createKey();
    const client = sdk(h, key);

    const message = await client.messages.create({ model, max_tokens: 100, messages: hello });
    t.match(message, { id: /^msg_/, type: 'message', role: 'assistant', model, stop_reason: 'end_turn', stop_sequence: null }, `${model}: a message`);
    t.same(message.content, [{ type: 'text', text: TEXT }]);
    t.same(message.usage, { input_tokens: 2, output_tokens: 12, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 });

    const events: string[] = [];
    let startInput = 0;
    const stream = client.messages.stream({ model, max_tokens: 100, messages: hello });
    stream.on('streamEvent', (event) => {
      events.push(event.type);
      if (event.type === 'message_start') startInput = event.message.usage.input_tokens;
    });
    const final = await stream.finalMessage();
    t.same(
      [final.content, final.usage.input_tokens, final.usage.output_tokens, final.stop_reason],
      [[{ type: 'text', text: TEXT }], 2, 12, 'end_turn'],
      `${model}: streamed`,
    );
    t.ok(startInput > 0, `${model}: message_start reports input tokens (${startInput})`);
    t.same([events[0], events.at(-2), events.at(-1)], ['message_start', 'message_delta', 'message_stop']);

    const ask: Anthropic.MessageParam[] = [{ role: 'user', content: 'Weather in Oslo?' }];
    const call = await client.messages.stream({ model, max_tokens: 100, tools: [WEATHER], messages: ask }).finalMessage();
    t.equal(call.stop_reason, 'tool_use', `${model}: a tool call`);
    const use = call.content.find((block) => block.type === 'tool_use');
    t.match(use, { type: 'tool_use', id: /^[a-zA-Z0-9_-]+$/, name: 'get_weather', input: { city: 'sample' } }, 'its input assembled from input_json_delta');
    const answer = await client.messages.create({
      model,
      max_tokens: 100,
      tools: [WEATHER],
      messages: [
        ...ask,
        { role: 'assistant', content: call.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: use?.id ?? '', content: '4 degrees' }] },
      ],
    });
    // The beta simulator echoes the functionResponse object it got.
    t.match([answer.content, answer.stop_reason], [[{ type: 'text', text: /^Tool results: .*4 degrees/ }], 'end_turn'], `${model}: the second turn`);

    t.same(await client.messages.countTokens({ model, messages: hello }), { input_tokens: HELLO_COUNT[model] }, `${model}: token count`);

    const rows = ledger.rows(id);
    const counted = model === 'gamma-5.4' ? [] : ['messages.count_tokens'];
    t.same(
      rows.map((row) => row.endpoint),
      ['messages', 'messages', 'messages', 'messages', ...counted],
      `${model}: a row per call that reached the upstream`,
    );
    t.match(rows[0], {
      model,
      endpoint: 'messages',
      stream: 0,
      status: 200,
      outcome: 'ok',
      prompt_tokens: 2,
      completion_tokens: 12,
      charged_nano: TWELVE_TOKENS_NANOS[model],
    });
    t.match(rows[1], { stream: 1, prompt_tokens: 2, completion_tokens: 12, charged_nano: TWELVE_TOKENS_NANOS[model], usage_estimated: 0 });
    if (counted.length) t.match(rows[4], { prompt_tokens: 0, completion_tokens: 0, charged_nano: 0 }, 'a count bills nothing');
  }
});

t.test("thinking: passed through to alpha, mapped by the model's table for beta and gamma; the thinking comes back as blocks", async (t) => {
  const h = await startHarness(t);
  const client = sdk(h, (await h.createKey()).key);
  const thinking = { type: 'enabled', budget_tokens: 1024 } as const;

  const alpha = await client.messages.create({ model: 'alpha-sonnet-4.6', max_tokens: 2048, thinking, messages: hello });
  t.same(lastUpstreamBody(h.alpha)['thinking'], thinking, 'alpha gets thinking as sent');
  t.match(
    alpha.content,
    [
      { type: 'thinking', thinking: THOUGHT, signature: /^gw2\.[A-Za-z0-9_-]+$/ },
      { type: 'text', text: TEXT },
    ],
    "alpha's own signed block first, its signature sealed",
  );

  const gamma = await client.messages.stream({ model: 'gamma-5.4', max_tokens: 2048, thinking, messages: hello }).finalMessage();
  t.equal(lastUpstreamBody(h.gamma)['reasoning_effort'], 'low', 'a budget of 1024 is a low effort');
  t.equal(gamma.stop_reason, 'end_turn');

  const beta = await client.messages.create({ model: 'beta-3-flash', max_tokens: 2048, thinking, messages: hello });
  t.same(
    (lastUpstreamBody(h.beta)['generationConfig'] as Record<string, unknown>)['thinkingConfig'],
    { thinkingLevel: 'LOW', includeThoughts: true },
    'beta: a low effort, its thoughts asked for',
  );
  t.match(
    beta.content,
    [
      { type: 'thinking', thinking: THOUGHT, signature: /^gw2\./ },
      { type: 'text', text: TEXT },
    ],
    "beta's thoughts, its signature in the gateway's envelope",
  );
});

t.test('GET /v1/models in the Messages shape for anthropic-version callers, paged; the reference shape for the others', async (t) => {
  const h = await startHarness(t);
  const client = sdk(h, 'no-key-needed');
  const seen: Anthropic.ModelInfo[] = [];
  for await (const model of client.models.list({ limit: 4 })) seen.push(model);
  const newestFirst = [...h.catalogue.models].sort((a, b) => b.created - a.created || a.id.localeCompare(b.id));
  t.same(
    seen.map((model) => model.id),
    newestFirst.map((model) => model.id),
    'every model, newest first, over three pages',
  );
  t.same(
    seen.find((model) => model.id === 'alpha-sonnet-4.6'),
    { type: 'model', id: 'alpha-sonnet-4.6', display_name: 'alpha-sonnet-4.6', created_at: '2026-02-17T00:00:00.000Z', max_tokens: 128000 },
  );
  t.equal((await client.models.retrieve('alpha-sonnet-4-6')).id, 'alpha-sonnet-4.6', 'an alias answers its canonical model');
  const beta: string[] = [];
  for await (const model of client.beta.models.list()) beta.push(model.id);
  t.equal(beta.length, newestFirst.length, '?beta=true too');

  const headers = { 'anthropic-version': '2023-06-01' };
  const first = (await raw(h.origin, 'GET', '/v1/models?limit=2', { headers })).json();
  t.match(first, { has_more: true, first_id: newestFirst[0]?.id, last_id: newestFirst[1]?.id });
  const back = (await raw(h.origin, 'GET', `/v1/models?limit=5&before_id=${newestFirst[2]?.id}`, { headers })).json();
  t.same([back.data.map((m: { id: string }) => m.id), back.has_more], [newestFirst.slice(0, 2).map((m) => m.id), false]);
  const after = (await raw(h.origin, 'GET', `/v1/models?limit=2&after_id=${newestFirst[1]?.id}`, { headers })).json();
  t.same([after.first_id, after.has_more], [newestFirst[2]?.id, true]);
  for (const [query, param] of [
    ['limit=0', 'limit'],
    ['limit=many', 'limit'],
    ['after_id=nope', 'after_id'],
    ['before_id=nope', 'before_id'],
    ['after_id=gamma-5.4&before_id=gamma-5.2', 'before_id'],
  ]) {
    const bad = await raw(h.origin, 'GET', `/v1/models?${query}`, { headers });
    t.same([bad.status, bad.json().error.type, bad.json().error.param], [400, 'invalid_request_error', param], `?${query}`);
  }
  const unknown = await raw(h.origin, 'GET', '/v1/models/alpha-opus-9', { headers });
  t.same([unknown.status, unknown.json().type, unknown.json().error.type, unknown.json().error.code], [404, 'error', 'not_found_error', 'model_not_found']);
  t.equal((await raw(h.origin, 'GET', '/v1/models')).json().object, 'list', 'without anthropic-version: the reference list');
});

t.test('a stream that breaks mid-way ends with event: error, and is billed for what was relayed', async (t) => {
  const h = await startHarness(t);
  const { key, id } = await h.createKey();
  for (const model of MESSAGES_MODELS) {
    const body = JSON.stringify({ model, max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'Hi [[sim:reset_after=3]]' }] });
    const res = await raw(h.origin, 'POST', '/v1/messages', { headers: { 'x-api-key': key, 'content-type': 'application/json' }, body });
    t.equal(res.status, 200, `${model}: the 200 was out`);
    t.match(res.text, /^event: message_start\n/);
    t.notMatch(res.text, /message_stop/);
    const last = res.text.trim().split('\n\n').at(-1) ?? '';
    t.match(
      last,
      /^event: error\ndata: \{"type":"error","error":\{"type":"api_error","message":"The \w+ upstream could not be reached or failed: [^"]*","code":"bad_gateway","param":null\}\}$/,
      `${model}: the last frame`,
    );
    const broken = await sdk(h, key)
      .messages.stream({ model, max_tokens: 100, messages: [{ role: 'user', content: 'Hi [[sim:reset_after=3]]' }] })
      .finalMessage()
      .catch((error: unknown) => error);
    t.type(broken, Anthropic.APIError, `${model}: the SDK raises it`);
  }
  const rows = openLedgerDb(h.dbPath);
  t.teardown(() => rows.close());
  t.ok(
    rows.rows(id).every((row) => row.outcome === 'upstream_error' && row.status === 200 && row.endpoint === 'messages'),
    'each broken stream has its row',
  );
});

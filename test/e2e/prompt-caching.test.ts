import t from 'tap';
import { FakeClock, startHarness, type Harness } from '../helpers/harness.js';
import { harnessLedgerRows } from '../helpers/ledger-db.js';
import { usage } from '../helpers/usage.js';

/**
 * Prompt caching (docs/caching.md): a cache breakpoint set in each format reaches alpha as its
 * `cache_control`; the alpha simulator writes the prefix up to it on a first call and reads it on
 * the next (a token a word), and each format reports both counts, whole and streamed; the ledger
 * prices them at the catalogue's cache rates. alpha-sonnet-4.6: input 0.60, cache_read 0.06,
 * cache_write 0.75, cache_write_1h 1.20, output 3.00 (charged 1.50) per 1M tokens.
 */

type Json = Record<string, any>;
const MODEL = 'alpha-sonnet-4.6';
const EPHEMERAL = { type: 'ephemeral' };
/** Six words the simulator counts as six tokens. */
const SYSTEM_TEXT = 'You answer in one short line.';

async function post(
  h: Harness,
  key: string,
  path: string,
  body: Json,
  headers: Record<string, string> = {},
): Promise<{ status: number; text: string; headers: Headers }> {
  const res = await fetch(`${h.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

const lastAlphaBody = (h: Harness): Json => JSON.parse(h.alpha.requests.at(-1)?.body ?? '{}') as Json;

/** The data of an SSE stream's events. */
const events = (text: string): Json[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as Json);

t.test(
  'chat: cache_control on parts, system, tool messages and tools reaches alpha; usage whole and streamed; the ledger priced at the cache rates',
  async (t) => {
    const h = await startHarness(t, { clock: new FakeClock() });
    const { key } = await h.createKey();
    const chat = (question: string, extra: Json = {}): Json => ({
      model: MODEL,
      messages: [
        { role: 'system', content: [{ type: 'text', text: SYSTEM_TEXT, cache_control: EPHEMERAL }] },
        { role: 'user', content: `${question} [[sim:tokens=5]]` },
      ],
      ...extra,
    });

    const first = await post(h, key, '/chat/completions', chat('first question'));
    t.equal(first.status, 200, first.text);
    t.same(lastAlphaBody(h)['system'], [{ type: 'text', text: SYSTEM_TEXT, cache_control: EPHEMERAL }], 'the system text marked');
    t.same(JSON.parse(first.text).usage, { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14, cache_creation_input_tokens: 6 }, 'the prefix written');

    const second = await post(h, key, '/chat/completions', chat('second question', { stream: true, stream_options: { include_usage: true } }));
    t.same(
      events(second.text).at(-1)?.['usage'],
      { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14, prompt_tokens_details: { cached_tokens: 6 } },
      'streamed: read',
    );

    const body = await usage(h, key);
    t.match(body.totals, { requests: 2, prompt_tokens: 18, cached_tokens: 6, cache_write_tokens: 6 });
    // First: 5 × 3000 + 3 × 600 + 6 × 750 = 21 300 nanos; second: 5 × 3000 + 3 × 600 + 6 × 60 = 17 160.
    t.equal(body.totals.upstream_cost_usd, '0.00003846', 'upstream: cache writes at 0.75, reads at 0.06, the rest at 0.60 per 1M');
    t.equal(body.totals.cost_usd, '0.000015', 'the caller: output only, as for every call');

    const parts = await post(h, key, '/chat/completions', {
      model: MODEL,
      tools: [{ type: 'function', function: { name: 'look', parameters: { type: 'object' } }, cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'Look it up', cache_control: EPHEMERAL }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'look', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: 'found it', cache_control: EPHEMERAL }] },
      ],
    });
    t.equal(parts.status, 200, parts.text);
    const sent = lastAlphaBody(h);
    t.same(sent['tools'][0].cache_control, { type: 'ephemeral', ttl: '1h' }, 'a tool');
    t.same(sent['messages'][0].content[0], { type: 'text', text: 'Look it up', cache_control: EPHEMERAL }, 'a user part');
    t.same(sent['messages'][2].content[0], { type: 'tool_result', tool_use_id: 'call_1', content: 'found it', cache_control: EPHEMERAL }, 'a tool result');
    t.equal(sent['cache_control'], undefined, 'no automatic caching unasked');

    const keyed = await post(h, key, '/chat/completions', { ...chat('third question'), prompt_cache_key: 'conv-1' });
    t.same(lastAlphaBody(h)['cache_control'], EPHEMERAL, 'prompt_cache_key: automatic caching');
    t.equal(keyed.status, 200);
    await post(h, key, '/chat/completions', { ...chat('third question'), prompt_cache_retention: '24h' });
    t.same(lastAlphaBody(h)['cache_control'], { type: 'ephemeral', ttl: '1h' }, 'retention 24h: the vendor longest');

    const bad = await post(h, key, '/chat/completions', {
      model: MODEL,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'persistent' } }] }],
    });
    t.equal(bad.status, 400);
    t.match(JSON.parse(bad.text), { error: { param: 'messages[0].content[0].cache_control', message: /must be \{"type": "ephemeral"\}/ } });
  },
);

t.test('alpha takes four breakpoints: of more, the last four are sent and each earlier one announced; refused under strict', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const marked = (text: string): Json => ({ type: 'text', text, cache_control: EPHEMERAL });
  const body = {
    model: MODEL,
    prompt_cache_key: 'conv-2',
    messages: [
      { role: 'system', content: [marked('one')] },
      { role: 'developer', content: [marked('two')] },
      { role: 'user', content: [marked('three'), marked('four')] },
    ],
  };
  const res = await post(h, key, '/chat/completions', body);
  t.equal(res.status, 200, res.text);
  t.equal(res.headers.get('x-gateway-adjusted'), 'messages[0].content[0].cache_control=dropped:limit');
  const sent = lastAlphaBody(h);
  t.same(
    [sent['system'][0].cache_control, sent['system'][1].cache_control, sent['messages'][0].content.map((b: Json) => b['cache_control']), sent['cache_control']],
    [undefined, EPHEMERAL, [EPHEMERAL, EPHEMERAL], EPHEMERAL],
    'the first left out, the top-level one kept',
  );
  t.equal(h.alpha.requests.length, 1);

  const strict = await startHarness(t, { configure: (config) => void (config.parameters = 'strict') });
  const strictKey = await strict.createKey();
  const refused = await post(strict, strictKey.key, '/chat/completions', body);
  t.equal(refused.status, 400);
  t.match(JSON.parse(refused.text), {
    error: { param: 'messages[0].content[0].cache_control', message: /at most 4 cache breakpoints a request \(5 were set\)/ },
  });
});

t.test('Responses: prompt_cache_breakpoint on a developer message reaches alpha; usage whole and streamed', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const ask = (question: string, extra: Json = {}): Json => ({
    model: MODEL,
    store: false,
    input: [
      { role: 'developer', content: [{ type: 'input_text', text: SYSTEM_TEXT, prompt_cache_breakpoint: EPHEMERAL }] },
      { role: 'user', content: `${question} [[sim:tokens=5]]` },
    ],
    ...extra,
  });
  const first = await post(h, key, '/responses', ask('first question'));
  t.equal(first.status, 200, first.text);
  t.same(lastAlphaBody(h).system, [{ type: 'text', text: SYSTEM_TEXT, cache_control: EPHEMERAL }]);
  t.same(JSON.parse(first.text).usage, {
    input_tokens: 9,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 6 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 14,
  });
  const second = await post(h, key, '/responses', ask('second question', { stream: true }));
  const completed = events(second.text).find((event) => event.type === 'response.completed');
  t.same(completed?.response.usage.input_tokens_details, { cached_tokens: 6 }, 'streamed: read');
  t.match((await usage(h, key)).totals, { prompt_tokens: 18, cached_tokens: 6, cache_write_tokens: 6 });
});

t.test('Messages: top-level cache_control passes to alpha; its usage relayed whole and streamed, and priced', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const headers = { 'anthropic-version': '2023-06-01' };
  const body = (extra: Json = {}): Json => ({
    model: MODEL,
    max_tokens: 50,
    cache_control: EPHEMERAL,
    system: [{ type: 'text', text: SYSTEM_TEXT }],
    messages: [{ role: 'user', content: 'the same question [[sim:tokens=5]]' }],
    ...extra,
  });
  const first = await post(h, key, '/messages', body(), headers);
  t.equal(first.status, 200, first.text);
  t.same(lastAlphaBody(h).cache_control, EPHEMERAL, 'automatic caching reaches alpha');
  t.same(JSON.parse(first.text).usage, { input_tokens: 0, cache_creation_input_tokens: 10, cache_read_input_tokens: 0, output_tokens: 5 });
  const second = await post(h, key, '/messages', body({ stream: true }), headers);
  t.same(events(second.text)[0]?.message.usage, { input_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 10, output_tokens: 1 });
  const { totals } = await usage(h, key);
  t.match(totals, { prompt_tokens: 20, cached_tokens: 10, cache_write_tokens: 10 });
  // 2 × 5 × 3000 output + 10 × 750 written + 10 × 60 read = 30 000 + 7 500 + 600 nanos.
  t.equal(totals.upstream_cost_usd, '0.0000381');

  const five = ['one', 'two', 'three', 'four', 'five'].map((text) => ({ type: 'text', text, cache_control: EPHEMERAL }));
  const over = await post(h, key, '/messages', body({ cache_control: undefined, system: five }), headers);
  t.equal(over.status, 400, 'more than four: relayed as it came, the vendor refuses it as it would directly');
  t.match(JSON.parse(over.text), { type: 'error', error: { type: 'invalid_request_error', message: /A maximum of 4 blocks with cache_control/ } });
});

t.test('one-hour breakpoints: the writes split by time to live, reported in Messages and priced at the one-hour rate, whole and streamed', async (t) => {
  const h = await startHarness(t);
  const { key, id } = await h.createKey();
  const headers = { 'anthropic-version': '2023-06-01' };
  const HOUR = { type: 'ephemeral', ttl: '1h' };
  // The system's six words cached for an hour, the first question's four for five minutes; three tokens more.
  const messages = (question: string, extra: Json = {}): Json => ({
    model: MODEL,
    max_tokens: 50,
    system: [{ type: 'text', text: SYSTEM_TEXT, cache_control: HOUR }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: question, cache_control: EPHEMERAL }] },
      { role: 'assistant', content: 'noted' },
      { role: 'user', content: 'go [[sim:tokens=5]]' },
    ],
    ...extra,
  });
  const first = await post(h, key, '/messages', messages('first question right here'), headers);
  t.equal(first.status, 200, first.text);
  t.same(
    JSON.parse(first.text).usage,
    {
      input_tokens: 3,
      cache_creation_input_tokens: 10,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 4, ephemeral_1h_input_tokens: 6 },
      output_tokens: 5,
    },
    'Messages: the vendor split relayed',
  );
  const streamed = await post(h, key, '/messages', messages('second question right here', { stream: true }), headers);
  t.same(
    events(streamed.text)[0]?.message.usage,
    {
      input_tokens: 3,
      cache_creation_input_tokens: 4,
      cache_read_input_tokens: 6,
      cache_creation: { ephemeral_5m_input_tokens: 4, ephemeral_1h_input_tokens: 0 },
      output_tokens: 1,
    },
    'streamed: the hour read, the new question written for five minutes',
  );

  // The chat format, whole and streamed (translated): no field for the split, the writes priced by it all the same.
  const chat = (question: string, extra: Json = {}): Json => ({
    model: MODEL,
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'A different system text of six.', cache_control: HOUR }] },
      { role: 'user', content: `${question} [[sim:tokens=5]]` },
    ],
    ...extra,
  });
  const chatStreamed = await post(h, key, '/chat/completions', chat('a question', { stream: true, stream_options: { include_usage: true } }));
  t.same(events(chatStreamed.text).at(-1)?.['usage'], { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14, cache_creation_input_tokens: 6 });
  const whole = await post(h, key, '/chat/completions', chat('another one'));
  t.same(JSON.parse(whole.text).usage, { prompt_tokens: 9, completion_tokens: 5, total_tokens: 14, prompt_tokens_details: { cached_tokens: 6 } });

  t.same(
    (await harnessLedgerRows(h, id)).map((row) => [
      row.stream,
      row.prompt_tokens,
      row.cache_read_tokens,
      row.cache_write_tokens,
      row.cache_write_1h_tokens,
      row.list_nano,
    ]),
    [
      // 3 plain × 600 + 4 five-minute writes × 750 + 6 one-hour writes × 1 200 + 5 output × 3 000
      [0, 13, 0, 10, 6, 1_800 + 3_000 + 7_200 + 15_000],
      // 3 plain × 600 + 6 read × 60 + 4 five-minute writes × 750 + 5 output × 3 000
      [1, 13, 6, 4, 0, 1_800 + 360 + 3_000 + 15_000],
      // 3 plain × 600 + 6 one-hour writes × 1 200 + 5 output × 3 000
      [1, 9, 0, 6, 6, 1_800 + 7_200 + 15_000],
      // 3 plain × 600 + 6 read × 60 + 5 output × 3 000
      [0, 9, 6, 0, 0, 1_800 + 360 + 15_000],
    ],
    'each row: its one-hour writes, priced at 1.20 per 1M',
  );
});

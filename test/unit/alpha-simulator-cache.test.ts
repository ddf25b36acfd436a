import t from 'tap';
import { createAlphaSimulator } from '../../plugins/vendor-alpha/simulator.js';

/**
 * The alpha simulator's prompt cache (plugins/vendor-alpha/simulator-cache.ts): a prefix up to a
 * breakpoint is written the first time and read the next, in exact token counts (a token a word).
 */

const KEY = 'sim-cache-key';

type Json = Record<string, unknown>;

t.test('breakpoints: written once, read after; top-level cache_control; more than four refused', async (t) => {
  const sim = createAlphaSimulator({ apiKey: KEY });
  await sim.listen();
  t.teardown(() => sim.close());
  const post = async (body: Json): Promise<{ status: number; body: Json; text: string }> => {
    const res = await fetch(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'alpha-sonnet-4.6', max_tokens: 50, ...body }),
    });
    const text = await res.text();
    return { status: res.status, body: res.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as Json) : {}, text };
  };
  const usage = async (body: Json): Promise<unknown> => {
    const { usage } = (await post(body)).body as { usage: Json };
    return [usage['input_tokens'], usage['cache_creation_input_tokens'], usage['cache_read_input_tokens']];
  };
  const ephemeral = { type: 'ephemeral' };
  // System: 6 words, breakpoint; user: 3 words.
  const system = [{ type: 'text', text: 'You answer in one short line.', cache_control: ephemeral }];
  const ask = (text: string): Json => ({ system, messages: [{ role: 'user', content: text }] });

  t.same(await usage(ask('first question here')), [3, 6, 0], 'first: the system prefix written');
  t.same(await usage(ask('another question here')), [3, 0, 6], 'again: the same prefix read');
  t.same(await usage({ ...ask('first question here'), model: 'alpha-opus-4.6' }), [3, 6, 0], 'per model');

  const turn = {
    system,
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'one two three', cache_control: ephemeral }] },
      { role: 'assistant', content: 'four five' },
      { role: 'user', content: 'six' },
    ],
  };
  t.same(await usage(turn), [3, 3, 6], 'a second breakpoint: the system read, the first message written');
  t.same(await usage({ ...turn, cache_control: ephemeral }), [0, 3, 9], 'top-level: up to the last block, after the longest prefix read');
  t.same(await usage({ ...turn, cache_control: ephemeral }), [0, 0, 12], 'and then read whole');
  t.same(await usage(ask('no breakpoint')), [2, 0, 6], 'a plain request');
  t.same(await usage({ messages: [{ role: 'user', content: 'nothing marked' }] }), [2, 0, 0], 'no breakpoint: nothing cached');

  const streamed = await post({ ...ask('streamed question here'), stream: true });
  t.match(streamed.text, /"usage":\{"input_tokens":3,"cache_creation_input_tokens":0,"cache_read_input_tokens":6,"output_tokens":1\}/, 'message_start says it');

  const five = Array.from({ length: 5 }, (_, i) => ({ type: 'text', text: `block ${i}`, cache_control: ephemeral }));
  const refused = await post({ system: five, messages: [{ role: 'user', content: 'hi' }] });
  t.equal(refused.status, 400);
  t.match(refused.body, { error: { type: 'invalid_request_error', message: 'A maximum of 4 blocks with cache_control may be provided. Found 5.' } });
  const four = await post({ system: five.slice(1), cache_control: ephemeral, messages: [{ role: 'user', content: 'hi' }] });
  t.equal(four.status, 400, 'a top-level cache_control takes one of the four');
  t.equal((await post({ system: five.slice(1), messages: [{ role: 'user', content: 'hi' }] })).status, 200, 'four are taken');
});

t.test('one-hour breakpoints: the writes split by time to live in cache_creation', async (t) => {
  const sim = createAlphaSimulator({ apiKey: KEY });
  await sim.listen();
  t.teardown(() => sim.close());
  const usage = async (body: Json): Promise<Json> => {
    const res = await fetch(`${sim.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': KEY, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'alpha-sonnet-4.6', max_tokens: 50, ...body }),
    });
    return ((await res.json()) as { usage: Json }).usage;
  };
  const hour = { type: 'ephemeral', ttl: '1h' };
  // System: 6 words, a one-hour breakpoint; the first user message: 3 words, a five-minute one; then 1 more word.
  const body = (question: string): Json => ({
    system: [{ type: 'text', text: 'You answer in one short line.', cache_control: hour }],
    messages: [
      { role: 'user', content: [{ type: 'text', text: 'one two three', cache_control: { type: 'ephemeral' } }] },
      { role: 'assistant', content: 'four' },
      { role: 'user', content: question },
    ],
  });
  t.match(
    await usage(body('five')),
    {
      input_tokens: 2,
      cache_creation_input_tokens: 9,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 3, ephemeral_1h_input_tokens: 6 },
    },
    'six written for an hour, three for five minutes',
  );
  t.match(
    await usage({ ...body('five'), messages: [{ role: 'user', content: 'a new question' }] }),
    {
      input_tokens: 3,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 6,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 0 },
    },
    'the one-hour prefix read: nothing written',
  );
  const automatic = await usage({ messages: [{ role: 'user', content: 'all of it for an hour' }], cache_control: hour });
  t.match(
    automatic,
    { cache_creation_input_tokens: 6, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 6 } },
    'a top-level one-hour breakpoint: all six words',
  );
  t.notOk(
    'cache_creation' in (await usage({ messages: [{ role: 'user', content: 'x' }], cache_control: { type: 'ephemeral' } })),
    'no one-hour breakpoint: not said',
  );
});

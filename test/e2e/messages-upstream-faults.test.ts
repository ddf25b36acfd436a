import type Anthropic from '@anthropic-ai/sdk';
import t from 'tap';
import { raw, startHarness } from '../helpers/harness.js';
import { sdk } from '../helpers/messages-client.js';
import { gatewayOnQueuedGamma, jsonAnswer, queuedUpstream, sseAnswer } from '../helpers/queued-upstream.js';

/**
 * The Messages format against what a vendor or a caller should not send (docs/formats/messages.md):
 * numbers that JSON.parse reads as Infinity and images the chat ingress would refuse are a 400
 * before any upstream; a gamma reply cut at max_tokens inside a tool call's arguments is a
 * billed 200; arguments broken otherwise are the 502 of a body not in the vendor's format; parallel
 * calls streamed interleaved end the stream with an error event. The gamma upstream is a small
 * server of the test's own that answers each request with the next queued answer.
 */

interface Frame {
  event: string;
  data: { type: string; index?: number };
}

const WEATHER: Anthropic.Tool = { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };
const ask: Anthropic.MessageCreateParamsNonStreaming = {
  model: 'gamma-5.4',
  max_tokens: 64,
  tools: [WEATHER],
  messages: [{ role: 'user', content: 'Weather in Oslo and Bergen?' }],
};
const completion = (args: string, finish: string): unknown => ({
  id: 'chatcmpl-u',
  object: 'chat.completion',
  model: 'gamma-5.4',
  choices: [
    {
      index: 0,
      message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: args } }] },
      finish_reason: finish,
    },
  ],
  usage: { prompt_tokens: 9, completion_tokens: 64 },
});
const chunk = (delta: unknown, finish: string | null = null): unknown => ({
  id: 'chatcmpl-u',
  object: 'chat.completion.chunk',
  model: 'gamma-5.4',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const callDelta = (index: number, args: string, head = false): unknown => ({
  tool_calls: [{ index, ...(head ? { id: `call_${index}`, type: 'function' } : {}), function: { ...(head ? { name: 'get_weather' } : {}), arguments: args } }],
});

const framesOf = (text: string): Frame[] =>
  text
    .trim()
    .split('\n\n')
    .map((frame) => ({ event: frame.split('\n')[0]?.slice(7) ?? '', data: JSON.parse(frame.split('\n')[1]?.slice(6) ?? 'null') as Frame['data'] }));

t.test('refused before any upstream: numbers read as Infinity, images the chat ingress refuses', async (t) => {
  const upstream = await queuedUpstream(t);
  const h = await startHarness(t, { env: { GAMMA_BASE_URL: upstream.origin } });
  const { key } = await h.createKey();
  const post = (body: string) => raw(h.origin, 'POST', '/v1/messages', { headers: { 'x-api-key': key, 'content-type': 'application/json' }, body });

  const numbers: Array<[string, string]> = [
    ['"max_tokens": 1e400', 'max_tokens'],
    ['"max_tokens": 64, "top_k": 1e400', 'top_k'],
    ['"max_tokens": 2048, "thinking": {"type": "enabled", "budget_tokens": 1e400}', 'thinking.budget_tokens'],
    ['"max_tokens": 64, "temperature": 1e400', 'temperature'],
    ['"max_tokens": 64, "top_p": -1e400', 'top_p'],
  ];
  for (const model of ['gamma-5.4', 'alpha-sonnet-4.6']) {
    for (const [fields, param] of numbers) {
      const res = await post(`{"model": "${model}", ${fields}, "messages": [{"role": "user", "content": "Hi"}]}`);
      t.same(
        [res.status, res.json().type, res.json().error.type, res.json().error.param],
        [400, 'error', 'invalid_request_error', param],
        `${model}: ${fields}`,
      );
    }
  }

  const images: unknown[] = [
    { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQ=' },
    { type: 'base64', media_type: 'image/png', data: '!!!not base64***' },
    { type: 'url', url: 'file:///etc/passwd' },
    { type: 'url', url: 'not a url' },
  ];
  for (const model of ['gamma-5.4', 'beta-3-flash']) {
    for (const source of images) {
      const res = await post(
        JSON.stringify({
          model,
          max_tokens: 64,
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'Look' },
                { type: 'image', source },
              ],
            },
          ],
        }),
      );
      t.same(
        [res.status, res.json().error.type, res.json().error.param],
        [400, 'invalid_request_error', 'messages[0].content[1].source'],
        `${model}: ${JSON.stringify(source)}`,
      );
    }
  }
  t.same([upstream.requests, h.alpha.requests.length, h.beta.requests.length], [0, 0, 0], 'no upstream was asked');
});

t.test(
  'tool-call arguments that are not a JSON object: a billed 200 when cut at max_tokens, else a 502; interleaved streamed calls end in an error event',
  async (t) => {
    const { upstream, h, id, key, db } = await gatewayOnQueuedGamma(t);
    const post = (body: unknown) =>
      raw(h.origin, 'POST', '/v1/messages', { headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });

    upstream.answers.push(jsonAnswer(completion('{"city": "Os', 'length')));
    const cut = await sdk(h, key).messages.create(ask);
    t.same(cut.content, [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: {} }], 'the call cut off has an empty input');
    t.same([cut.stop_reason, cut.usage.output_tokens], ['max_tokens', 64], 'max_tokens, and the output the vendor produced');

    upstream.answers.push(jsonAnswer(completion('{"city": "Os', 'tool_calls')));
    const broken = await post(ask);
    t.equal(broken.status, 502);
    t.same(broken.json(), {
      type: 'error',
      error: { type: 'api_error', message: "The gamma upstream sent a tool call's arguments string that is not JSON.", code: 'bad_gateway', param: null },
    });

    upstream.answers.push(
      sseAnswer([
        chunk({ role: 'assistant', content: null }),
        chunk(callDelta(0, '', true)),
        chunk(callDelta(1, '{"city": "Bergen"}', true)),
        chunk(callDelta(0, '{"city": "Oslo"}')),
        chunk({}, 'tool_calls'),
      ]),
    );
    const stream = await post({ ...ask, stream: true });
    t.equal(stream.status, 200, 'the stream had begun');
    const frames = framesOf(stream.text);
    let open: number | null = null;
    for (const { data } of frames) {
      if (data.type === 'content_block_start') open = data.index ?? null;
      if (data.type === 'content_block_delta') t.equal(data.index, open, `a delta of block ${String(data.index)} while it is open`);
      if (data.type === 'content_block_stop') open = null;
    }
    t.same(
      frames.map((frame) => frame.event),
      ['message_start', 'content_block_start', 'content_block_stop', 'content_block_start', 'content_block_delta', 'error'],
    );
    t.same(frames.at(-1)?.data, {
      type: 'error',
      error: { type: 'api_error', message: 'The upstream sent arguments of a tool call after its next content block began.', code: 'bad_gateway', param: null },
    });

    t.match(
      db.rows(id),
      [
        { status: 200, outcome: 'ok', stream: 0, prompt_tokens: 9, completion_tokens: 64 },
        { status: 502, outcome: 'upstream_error', stream: 0, completion_tokens: 0 },
        { status: 200, outcome: 'upstream_error', stream: 1 },
      ],
      'the cut reply is billed; the broken ones are upstream errors',
    );
  },
);

import type { ModelEntry } from '../../src/catalogue/catalogue.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import t from 'tap';
import { chatFormat } from '../../plugins/ingress-chat/format.js';
import { gammaChatBody } from '../../plugins/vendor-gamma/request.js';
import { createGammaTranslator, GammaPassthrough, GammaTranslating } from '../../plugins/vendor-gamma/translator.js';
import { Call, type Endpoint } from '../../src/chain/call.js';
import type { IngressFormat } from '../../src/chain/ingress.js';
import type { UpstreamRequest } from '../../src/chain/translator.js';
import { ADMITTED_AT, catalogue, fixedIds, runStream, thrown } from '../helpers/translate.js';

/**
 * Gamma for callers of another format: the neutral request → a reference chat request, the
 * reference answer → the neutral reply, written by the caller's format. Exercised here with a
 * format that reads and writes like the chat ingress but speaks another wire, so every path
 * through gamma's translating mode is compared with what the passthrough gives.
 */

const otherWire: IngressFormat = { ...chatFormat, name: 'other', wire: 'some-other-wire' };
const endpoint: Endpoint = { name: 'chat.completions', path: '/v1/x', method: 'POST', upstream: true, operation: 'generate', format: otherWire };

function call(body: Record<string, unknown>, stream = false): Call {
  const c = new Call(endpoint, { headers: {} } as IncomingMessage, {} as ServerResponse, ADMITTED_AT, Buffer.from(JSON.stringify(body)));
  c.resolveModel(catalogue.resolve(String(body['model'])) as ModelEntry);
  c.stream = stream;
  c.includeUsage = stream;
  return c;
}

t.test("the translator follows the wire of the caller's format", async (t) => {
  t.type(createGammaTranslator(call({ model: 'gamma-5.4' }), 'k', null), GammaTranslating);
  const chat = call({ model: 'gamma-5.4' });
  Object.defineProperty(chat, 'endpoint', { value: { ...endpoint, format: chatFormat } });
  t.type(createGammaTranslator(chat, 'k', null), GammaPassthrough);
});

/** A conversation with every kind of message, which reaches gamma as it was sent. */
const MESSAGES = [
  { role: 'system', content: 'Be brief.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Weather?' },
      { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
    ],
  },
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get', arguments: '{"city":"Oslo"}' } }] },
  { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
];

t.test('the neutral request as a reference chat request', async (t) => {
  const body = {
    model: 'gamma-5.2',
    messages: MESSAGES,
    max_tokens: 50,
    temperature: 0.5,
    stop: ['x'],
    tools: [{ type: 'function', function: { name: 'get', parameters: { type: 'object' } } }],
    tool_choice: { type: 'function', function: { name: 'get' } },
    parallel_tool_calls: false,
    response_format: { type: 'json_schema', json_schema: { name: 'w', schema: { type: 'object' } } },
  };
  const request = (await createGammaTranslator(call(body, true), 'k', null).request()) as UpstreamRequest;
  t.equal(request.path, 'v1/chat/completions');
  t.equal(request.headers['authorization'], 'Bearer k');
  t.same(JSON.parse(request.body.toString()), {
    model: 'gamma-5.2',
    messages: MESSAGES,
    max_completion_tokens: 50,
    temperature: 0.5,
    stop: ['x'],
    tools: [{ type: 'function', function: { name: 'get', parameters: { type: 'object' } } }],
    parallel_tool_calls: false,
    tool_choice: { type: 'function', function: { name: 'get' } },
    response_format: { type: 'json_schema', json_schema: { name: 'w', schema: { type: 'object' } } },
    stream: true,
    stream_options: { include_usage: true },
  });
  const topK = call({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] });
  Object.defineProperty(topK, 'request', { value: { ...topK.request, topK: 5 } });
  const announced: string[] = [];
  const dropped = gammaChatBody(topK.request, topK.model as ModelEntry, false, (param, action) => announced.push(`${param}=${action}`));
  t.same([dropped['top_k'], announced], [undefined, ['top_k=dropped']], 'top_k, which gamma has not, is left out and announced');
  t.match(
    thrown(() => gammaChatBody(topK.request, topK.model as ModelEntry, false)),
    { status: 400, param: 'top_k' },
    'without a call to announce it on, refused, naming it',
  );
});

t.test("the reference answer read back and written by the caller's format", async (t) => {
  const translator = createGammaTranslator(call({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] }), 'k', null);
  const out = translator.response(
    Buffer.from(
      '{"id":"chatcmpl-up","object":"chat.completion","created":1,"model":"gpt-x","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_9","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":2}}}',
    ),
  );
  t.same(JSON.parse(fixedIds(String(out.body))), {
    id: 'chatcmpl-ID',
    object: 'chat.completion',
    created: ADMITTED_AT / 1000,
    model: 'gamma-5.4',
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'f', arguments: '{}' } }],
        },
        logprobs: null,
        finish_reason: 'tool_calls',
      },
    ],
    usage: {
      prompt_tokens: 7,
      completion_tokens: 3,
      total_tokens: 10,
      prompt_tokens_details: { cached_tokens: 4 },
      completion_tokens_details: { reasoning_tokens: 2 },
    },
  });
  t.same(out.usage, { promptTokens: 7, completionTokens: 3, cachedTokens: 4, reasoningTokens: 2 });
  t.match(
    thrown(() => translator.response(Buffer.from('{"choices":[]}'))),
    { status: 502 },
    "no choices: the upstream's fault",
  );
});

t.test("reference chunks → neutral events → the caller's stream; an unfinished stream is a 502", async (t) => {
  const chunk = (choice: string): string => `data: {"id":"u","object":"chat.completion.chunk","created":1,"model":"gpt-x","choices":[${choice}]}\n\n`;
  const sse =
    chunk('{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}') +
    chunk('{"index":0,"delta":{"content":"Hel"},"finish_reason":null}') +
    chunk('{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"finish_reason":null}') +
    chunk('{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\\"a\\":1}"}}]},"finish_reason":null}') +
    chunk('{"index":0,"delta":{},"finish_reason":"tool_calls"}') +
    'data: {"id":"u","choices":[],"usage":{"prompt_tokens":2,"completion_tokens":5,"total_tokens":7}}\n\ndata: [DONE]\n\n';
  const translator = createGammaTranslator(call({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] }, true), 'k', null);
  const stream = translator.stream();
  const out = runStream(translator, sse);
  const deltas = out
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => JSON.parse(frame.slice(6)) as { choices: Array<{ delta?: unknown; finish_reason?: unknown }>; usage?: unknown; model: string });
  t.same(
    deltas.map((d) => d.choices[0]?.delta ?? null),
    [
      { role: 'assistant', content: '' },
      { content: 'Hel' },
      { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'f', arguments: '' } }] },
      { tool_calls: [{ index: 0, function: { arguments: '{"a":1}' } }] },
      {},
      null,
    ],
  );
  t.equal(deltas.at(-2)?.choices[0]?.finish_reason, 'tool_calls');
  t.same(deltas.at(-1)?.usage, { prompt_tokens: 2, completion_tokens: 5, total_tokens: 7 }, 'the usage chunk the caller asked for');
  t.ok(
    deltas.every((d) => d.model === 'gamma-5.4'),
    'the canonical model throughout',
  );
  t.equal(stream.done(), 'data: [DONE]\n\n', "the caller's format ends it");
  const cut = createGammaTranslator(call({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] }, true), 'k', null);
  t.match(
    thrown(() => runStream(cut, chunk('{"index":0,"delta":{"content":"Hel"},"finish_reason":null}'))),
    { status: 502 },
  );
});

t.test("the model's refusal read back, whole and streamed, and written by the caller's format", async (t) => {
  const ask = { model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] };
  const whole = createGammaTranslator(call(ask), 'k', null).response(
    Buffer.from(
      '{"id":"u","object":"chat.completion","created":1,"model":"gpt-x","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"I cannot help."},"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"completion_tokens":4}}',
    ),
  );
  t.same((JSON.parse(String(whole.body)) as { choices: unknown[] }).choices, [
    { index: 0, message: { role: 'assistant', content: null, refusal: 'I cannot help.' }, logprobs: null, finish_reason: 'stop' },
  ]);

  const chunk = (delta: string, finish = 'null'): string =>
    `data: {"id":"u","object":"chat.completion.chunk","created":1,"model":"gpt-x","choices":[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish}}]}\n\n`;
  const sse =
    chunk('{"role":"assistant","content":null,"refusal":""}') +
    chunk('{"refusal":"I cannot"}') +
    chunk('{"refusal":" help."}') +
    chunk('{}', '"stop"') +
    'data: [DONE]\n\n';
  const out = runStream(createGammaTranslator(call(ask, true), 'k', null), sse);
  const deltas = out
    .split('\n\n')
    .filter(Boolean)
    .map((frame) => (JSON.parse(frame.slice(6)) as { choices: Array<{ delta: unknown }> }).choices[0]?.delta ?? null);
  t.same(
    deltas,
    [{ role: 'assistant', content: '' }, { refusal: 'I cannot' }, { refusal: ' help.' }, {}, null],
    'every fragment as a refusal delta, then the usage chunk',
  );
});

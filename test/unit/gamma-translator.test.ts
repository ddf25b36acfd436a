import t from 'tap';
import { GammaPassthrough as GammaTranslator } from '../../plugins/vendor-gamma/translator.js';
import { makeCall, thrown } from '../helpers/translate.js';

/**
 * The gamma stream relay, byte for byte: ordinary chunks are relayed without parsing (and the
 * `usage: null` the gateway asked for is dropped when the caller did not ask), everything else
 * takes the parsed path. Literal upstream chunks in, literal caller frames out.
 */

const CONTENT =
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gamma-5.4","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}],"usage":null}';
const ROLE =
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gamma-5.4","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}],"usage":null}';
const USAGE =
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gamma-5.4","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}';
const TRICKY =
  '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gamma-5.4","choices":[{"index":0,"delta":{"content":"say \\",\\"usage\\":null and \\"error\\""},"finish_reason":null}],"usage":null}';
const SPACED = '{"id": "chatcmpl-1", "model": "gamma-5.4", "choices": [{"index": 0, "delta": {"content": "Hi"}}], "usage": null}';
const NO_USAGE =
  '{"id":"chatcmpl-1","model":"gamma-5.4","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"finish_reason":null}]}';

function stream(model: string, includeUsage: boolean) {
  const call = makeCall({ model, messages: [{ role: 'user', content: 'x' }], stream: true }, { model, stream: true, includeUsage });
  return new GammaTranslator(call, 'k', null).stream();
}
const data = (frame: string): string => frame.replace(/^data: /, '').replace(/\n\n$/, '');

t.test('ordinary chunks: relayed as they came, minus the usage key the caller did not ask for', async (t) => {
  const s = stream('gamma-5.4', false);
  t.equal(s.event({ data: ROLE }), `data: ${ROLE.replace(',"usage":null', '')}\n\n`);
  t.equal(s.event({ data: CONTENT }), `data: ${CONTENT.replace(',"usage":null', '')}\n\n`, 'byte for byte but the usage key');
  t.equal(s.event({ data: NO_USAGE }), `data: ${NO_USAGE}\n\n`, 'a chunk without usage is untouched');
  const tricky = s.event({ data: TRICKY });
  const expected = JSON.parse(TRICKY) as Record<string, unknown>;
  delete expected['usage'];
  t.same(JSON.parse(data(tricky)), expected, 'text that looks like the keys stays text');
  t.equal(JSON.parse(data(tricky)).choices[0].delta.content, 'say ","usage":null and "error"');
  const spaced = s.event({ data: SPACED });
  t.notOk('usage' in JSON.parse(data(spaced)), 'other spacing takes the parsed path, and the key still goes');
  t.equal(s.event({ data: USAGE }), '', 'the usage chunk is not relayed');
  t.same(s.usage, { promptTokens: 3, completionTokens: 2 }, 'but it is read for the ledger');
  t.equal(s.relayedDeltas, 4, 'content, tool-call, tricky and spaced chunks are output deltas; the role chunk is not');
  t.equal(s.event({ data: '[DONE]' }), '', "the upstream's [DONE] is the gateway's to send");
});

t.test('the caller asked for usage: everything relayed as it came', async (t) => {
  const s = stream('gamma-5.4', true);
  t.equal(s.event({ data: CONTENT }), `data: ${CONTENT}\n\n`);
  t.equal(s.event({ data: USAGE }), `data: ${USAGE}\n\n`);
  t.same(s.usage, { promptTokens: 3, completionTokens: 2 });
});

t.test('errors and garbage end the stream with our envelope', async (t) => {
  const s = stream('gamma-5.4', false);
  t.match(
    thrown(() => s.event({ data: '{"error":{"message":"boom","type":"server_error"}}' })),
    { status: 502, message: /mid-stream: boom/ },
  );
  t.match(
    thrown(() => s.event({ data: 'not json' })),
    { status: 502 },
  );
  t.match(
    thrown(() => s.event({ data: '{"choices": [' })),
    { status: 502 },
  );
});

t.test('a stream is whole only when every choice asked for finished; otherwise the upstream is at fault', async (t) => {
  const FINISH = '{"id":"chatcmpl-1","model":"gamma-5.4","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}';
  const SPACED_FINISH = '{"id": "chatcmpl-1", "choices": [{"index": 1, "delta": {}, "finish_reason": "length"}], "usage": null}';
  // The translator's 502 is the upstream's fault: the pipeline records it as upstream_error (test/e2e/gamma-truncation.test.ts).
  const run = (n: number, chunks: string[]): { error: unknown } => {
    const call = makeCall({ model: 'gamma-5.4', n, messages: [{ role: 'user', content: 'x' }], stream: true }, { model: 'gamma-5.4', stream: true });
    const s = new GammaTranslator(call, 'k', null).stream();
    return { error: thrown(() => [...chunks.map((data) => s.event({ data })), s.end()]) };
  };
  t.equal(run(1, [CONTENT, FINISH, USAGE, '[DONE]']).error, undefined, 'finished, through the fast path');
  t.equal(run(2, [CONTENT, FINISH, SPACED_FINISH]).error, undefined, 'a finish reason with other spacing counts too');
  const cases: Array<[string, number, string[], RegExp]> = [
    ['no finish reason', 1, [CONTENT, USAGE, '[DONE]'], /before choice 0 finished/],
    ['one of two choices', 2, [CONTENT, FINISH, USAGE, '[DONE]'], /before choice 1 finished/],
    ['no events at all', 1, [], /empty body or one that is not an event stream/],
  ];
  for (const [what, n, chunks, reason] of cases) {
    t.match(run(n, chunks).error, { status: 502, message: reason }, what);
  }
  t.match(run(1, ['not json']).error, { status: 502 }, 'garbage is a 502 too');
});

t.test('a dated upstream model name becomes the canonical ID in every chunk, spliced without parsing', async (t) => {
  const dated = (chunk: string): string => chunk.replace('"model":"gamma-5.4"', '"model":"gamma-5.4-2026-03-05"');
  for (const includeUsage of [false, true]) {
    const s = stream('gamma-5.4', includeUsage);
    const strip = (chunk: string): string => (includeUsage ? chunk : chunk.replace(',"usage":null', ''));
    t.equal(s.event({ data: dated(ROLE) }), `data: ${strip(ROLE)}\n\n`, 'the role chunk: byte for byte but the model');
    t.equal(s.event({ data: dated(CONTENT) }), `data: ${strip(CONTENT)}\n\n`, 'a text chunk too');
    t.equal(s.event({ data: dated(TRICKY) }), `data: ${strip(TRICKY)}\n\n`, 'and one whose text looks like keys');
    if (includeUsage) t.equal(s.event({ data: dated(USAGE) }), `data: ${USAGE}\n\n`, 'the usage chunk, when relayed');
  }
});

t.test('text that looks like a model member is never edited; other shapes take the parsed path', async (t) => {
  const s = stream('gamma-5.4', true);
  const said = 'the \\"model\\":\\"gamma-5.4-2026-03-05\\" and model\\":\\"x';
  const inText = `{"id":"chatcmpl-1","model":"gamma-5.4","choices":[{"index":0,"delta":{"content":"${said}"},"finish_reason":null}],"usage":null}`;
  t.equal(s.event({ data: inText }), `data: ${inText}\n\n`, 'the canonical model, text that names another: relayed as it came');
  const datedInText = inText.replace('"model":"gamma-5.4"', '"model":"gamma-5.4-2026-03-05"');
  t.equal(s.event({ data: datedInText }), `data: ${inText}\n\n`, 'a dated model, the same text: only the member changes');
  const cases: Array<[string, string]> = [
    [
      'a key ending in an escaped "model"',
      '{"note\\"model":"keep","model":"gamma-5.4-2026-03-05","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}],"usage":null}',
    ],
    [
      "a nested model before the chunk's own",
      '{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"},"model":"inner","finish_reason":null}],"model":"gamma-5.4-2026-03-05","usage":null}',
    ],
    ['an escaped model value', '{"id":"c","model":"gamma \\"5.4\\" dated","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}],"usage":null}'],
    ['no model at all', '{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}],"usage":null}'],
  ];
  for (const [what, chunk] of cases) {
    const expected = { ...(JSON.parse(chunk) as Record<string, unknown>), model: 'gamma-5.4' };
    t.same(JSON.parse(data(s.event({ data: chunk }))), expected, what);
  }
});

import type { ModelEntry } from '../../src/catalogue/catalogue.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import t from 'tap';
import { chatFormat } from '../../plugins/ingress-chat/format.js';
import { plainTextDelta } from '../../plugins/vendor-gamma/text-delta.js';
import { createGammaTranslator } from '../../plugins/vendor-gamma/translator.js';
import { Call, type Endpoint } from '../../src/chain/call.js';
import type { IngressFormat } from '../../src/chain/ingress.js';
import { ADMITTED_AT, catalogue, fixedIds, runStream } from '../helpers/translate.js';

/**
 * A gamma chunk that carries only a text delta is read without JSON.parse when gamma's stream
 * is translated for another format. Whatever it reads must be what the parser would have read,
 * and every other shape must be left to the parser.
 */

const HEAD = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gamma-5.4"';
const textChunk = (content: string, end = ',"usage":null}'): string =>
  `${HEAD},"choices":[{"index":0,"delta":{"content":${JSON.stringify(content)}},"logprobs":null,"finish_reason":null}]${end}`;

t.test('a plain text delta is read, escapes decoded', async (t) => {
  for (const content of [
    'Hello',
    ' from',
    '',
    'line one\nline "two"',
    'ends in a backslash \\',
    '\\"',
    'caf\u00e9 \u2603 \ud83d\ude00',
    '</script>',
    '{"choices":[]}',
  ]) {
    t.equal(plainTextDelta(textChunk(content)), content, JSON.stringify(content));
    t.equal(plainTextDelta(textChunk(content, '}')), content, `${JSON.stringify(content)} without a usage member`);
  }
  t.equal(
    plainTextDelta(`${HEAD},"choices":[{"index":0,"delta":{"content":"caf\\u00e9 \\/"},"logprobs":null,"finish_reason":null}]}`),
    'café /',
    '\\u and \\/ escapes',
  );
  t.equal(
    plainTextDelta(`{"id":"x","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]}`),
    'a',
    'other scalar members first',
  );
});

t.test('every other shape is left to the parser', async (t) => {
  const chunks: Record<string, string> = {
    'the first chunk, with the role': `${HEAD},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}`,
    'a finish': `${HEAD},"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}`,
    'text with a finish': `${HEAD},"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":"stop"}],"usage":null}`,
    'the usage chunk': `${HEAD},"choices":[],"usage":{"prompt_tokens":2,"completion_tokens":5,"total_tokens":7}}`,
    'text and a usage object': `${HEAD},"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":1}}`,
    'a usage member before the choices': `{"usage":null,"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]}`,
    'a key name running into the choices': `{"usage"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]}`,
    'an error member': `{"error":"boom","choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]}`,
    'an error after the choices': `${HEAD},"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}],"error":{"message":"x"}}`,
    'a nested object before the choices': `{"x":{"y":1},"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]}`,
    'choices inside another member': `{"x":{"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]},"choices":[]}`,
    'a second choice': `${HEAD},"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null},{"index":1,"delta":{"content":"b"},"logprobs":null,"finish_reason":null}]}`,
    'choice 1': `${HEAD},"choices":[{"index":1,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]}`,
    logprobs: `${HEAD},"choices":[{"index":0,"delta":{"content":"a"},"logprobs":{"content":[]},"finish_reason":null}]}`,
    'another member after the choices': `${HEAD},"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}],"obfuscation":"xy"}`,
    'a tool-call fragment': `${HEAD},"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]},"logprobs":null,"finish_reason":null}]}`,
    'a refusal fragment': `${HEAD},"choices":[{"index":0,"delta":{"refusal":"I cannot"},"logprobs":null,"finish_reason":null}]}`,
    'a refusal beside empty text': `${HEAD},"choices":[{"index":0,"delta":{"content":"","refusal":"I cannot"},"logprobs":null,"finish_reason":null}]}`,
    'reasoning beside the text': `${HEAD},"choices":[{"index":0,"delta":{"content":"a","reasoning_content":"b"},"logprobs":null,"finish_reason":null}]}`,
    spaces: `{"id": "x", "choices": [{"index": 0, "delta": {"content": "a"}, "logprobs": null, "finish_reason": null}]}`,
    'cut short': `${HEAD},"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]`,
    'an unterminated string': `${HEAD},"choices":[{"index":0,"delta":{"content":"a\\"},"logprobs":null,"finish_reason":null}]}`,
    'not an object': `"choices":[{"index":0,"delta":{"content":"a"},"logprobs":null,"finish_reason":null}]}`,
    'a bad escape': `${HEAD},"choices":[{"index":0,"delta":{"content":"a\\q"},"logprobs":null,"finish_reason":null}]}`,
  };
  for (const [name, data] of Object.entries(chunks)) t.equal(plainTextDelta(data), null, name);
});

const otherWire: IngressFormat = { ...chatFormat, name: 'other', wire: 'some-other-wire' };
const endpoint: Endpoint = { name: 'chat.completions', path: '/v1/x', method: 'POST', upstream: true, operation: 'generate', format: otherWire };

function translated(sse: string): string {
  const call = new Call(endpoint, { headers: {} } as IncomingMessage, {} as ServerResponse, ADMITTED_AT, Buffer.from('{"model":"gamma-5.4","messages":[]}'));
  call.resolveModel(catalogue.resolve('gamma-5.4') as ModelEntry);
  call.stream = true;
  call.includeUsage = true;
  return fixedIds(runStream(createGammaTranslator(call, 'k', null), sse));
}

t.test('a stream translated for another format is the same whether its chunks are read or parsed', async (t) => {
  const texts = ['Hel', 'lo\n', ' "you"', '', ' \\ ok'];
  const frames = (spaced: boolean): string =>
    texts
      .map((text) => textChunk(text))
      // JSON with spaces is the same chunk to a parser, and never takes the read path.
      .map((data) => `data: ${spaced ? JSON.stringify(JSON.parse(data), null, 1).replace(/\n/g, '') : data}\n\n`)
      .join('') +
    `data: ${HEAD},"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}],"usage":null}\n\n` +
    `data: ${HEAD},"choices":[],"usage":{"prompt_tokens":2,"completion_tokens":5,"total_tokens":7}}\n\ndata: [DONE]\n\n`;
  t.ok(
    texts.every((text) => plainTextDelta(textChunk(text)) === text),
    'the compact chunks take the read path',
  );
  const read = translated(frames(false));
  t.equal(read, translated(frames(true)));
  t.match(read, /"content":"Hel"/, 'the text reaches the caller');
});

/** The text the parser finds where the read path looks, or undefined when the parsed chunk is not that shape. */
function parsedPlainText(data: string): string | undefined {
  let chunk: Record<string, unknown>;
  try {
    chunk = JSON.parse(data) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const choices = chunk['choices'] as Array<Record<string, unknown>> | undefined;
  const choice = Array.isArray(choices) && choices.length === 1 ? choices[0] : undefined;
  const delta = choice?.['delta'] as Record<string, unknown> | undefined;
  const plain = chunk['error'] === undefined && (chunk['usage'] ?? null) === null && choice?.['index'] === 0 && choice['finish_reason'] === null;
  return plain && typeof delta?.['content'] === 'string' && Object.keys(delta).length === 1 ? delta['content'] : undefined;
}

t.test('whatever the read path reads from a valid chunk, the parser reads the same', async (t) => {
  // Seeded mutations of a plain chunk: inserted, deleted and overwritten fragments of JSON.
  const fragments = [
    '{',
    '}',
    '[',
    ']',
    '"',
    '\\',
    ':',
    ',',
    ' ',
    '"usage"',
    '"error"',
    ':null',
    ':{"a":1}',
    '\\"',
    '\\u00e9',
    '"x":1,',
    '"error":"e",',
    '"usage":7,',
    '"usage":null,',
    ',"usage":null}',
    '"choices":[{"index":0,"delta":{"content":"',
  ];
  let seed = 7;
  const next = (n: number): number => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
  let read = 0;
  let disagreements = 0;
  for (let i = 0; i < 20000; i++) {
    let data = textChunk('some text');
    for (let edits = 1 + next(3); edits > 0; edits--) {
      // Half the edits at a member's start (after `{` or `,`), where an inserted member keeps the JSON valid.
      const starts = [...data.matchAll(/[{,]/g)].map((match) => match.index + 1);
      const at = next(2) === 0 ? (starts[next(starts.length)] as number) : next(data.length + 1);
      const fragment = fragments[next(fragments.length)] as string;
      const kind = next(3);
      data = data.slice(0, at) + (kind === 1 ? '' : fragment) + data.slice(at + (kind === 0 ? 0 : kind === 1 ? 1 + next(4) : fragment.length));
    }
    const text = plainTextDelta(data);
    if (text === null) continue;
    read += 1;
    const parsed = parsedPlainText(data);
    // A chunk the parser refuses may still be read (its prefix is not ours to judge); one it accepts must agree.
    if (parsed === undefined ? isValidJson(data) : parsed !== text) disagreements += 1;
  }
  t.equal(disagreements, 0, 'no valid chunk is read differently from the parser');
  t.ok(read > 1000, `the mutations reach the read path (${read} read)`);
});

function isValidJson(data: string): boolean {
  try {
    JSON.parse(data);
    return true;
  } catch {
    return false;
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import t from 'tap';
import { resolvedTo } from '../helpers/translate.js';
import { MESSAGES_ENDPOINTS } from '../../plugins/ingress-messages/index.js';
import { BetaFilter } from '../../plugins/vendor-alpha/betas.js';
import { valueEnd } from '../../src/json-text/spans.js';
import { AlphaPassthrough } from '../../plugins/vendor-alpha/passthrough.js';
import type { ModelEntry } from '../../src/catalogue/catalogue.js';
import { Call } from '../../src/chain/call.js';
import { createLogger } from '../../src/log.js';
import { sealed } from '../helpers/reasoning-seal.js';

/**
 * The passthrough's changes made in the bytes that came (plugins/vendor-alpha/exact-edits.ts):
 * thinking blocks out of the gateway's envelope, a model name set where it stands or added, and
 * the one case written from the parsed value — a member to change standing twice.
 */

const CREATE = MESSAGES_ENDPOINTS[0] as NonNullable<(typeof MESSAGES_ENDPOINTS)[0]>;

function passthrough(body: string): AlphaPassthrough {
  const model = { id: 'alpha-sonnet-4.6', upstream: 'alpha-sonnet-4.6' } as ModelEntry;
  const call = resolvedTo(new Call(CREATE, { headers: {}, rawHeaders: [] } as unknown as IncomingMessage, {} as ServerResponse, 0, Buffer.from(body)), model);
  return new AlphaPassthrough(call, { apiKey: 'alpha-key', betas: new BetaFilter([], createLogger('silent')) });
}

const sent = (body: string): string => passthrough(body).request().body.toString();

const SIGNED = sealed({ family: 'alpha', kind: 'signature', data: 'EqQBsig' });
const REDACTED = sealed({ family: 'alpha', kind: 'redacted', data: 'EmwKAhgB' });
const BETA = `{"type":"thinking","thinking":"","signature":"${sealed({ family: 'beta', kind: 'thought_signature', data: 'CpwBAdHt' })}"}`;

t.test("thinking blocks out of the envelope: a signature where it stood, a redacted block written whole, another family's out with its comma", async (t) => {
  const body = (model: string, first: string, second: string, rest: string): string =>
    `{"model": ${model}, "max_tokens": 64, "messages": [\n` +
    `  {"role": "user", "content": [{"type": "text", "text": "Hi", "n": 12345678901234567891}]},\n` +
    `  {"role": "assistant", "content": [\n    {"type": "thinking", "thinking": "Weigh it.", "signature": "${first}", "cache_control": {"type": "ephemeral", "n": 1.10}},\n    ${second}${rest}\n  ]},\n` +
    `  {"role": "assistant", "content": [ ${BETA}, ${BETA} , {"type":"text","text":"a"} ]},\n` +
    `  {"role": "assistant", "content": [{"type":"text","text":"b"},${BETA}]},\n` +
    `  {"role": "user", "content": "More"}\n]}`;
  const rest = `,\n    ${BETA},\n    {"type": "text", "text": "Hello."}`;
  t.equal(
    sent(body('"Alpha-Sonnet-4-6"', SIGNED, `{"type":"thinking", "thinking":"","signature":"${REDACTED}"}`, rest)),
    body('"alpha-sonnet-4.6"', 'EqQBsig', '{"type":"redacted_thinking","data":"EmwKAhgB"}', ',\n    {"type": "text", "text": "Hello."}')
      .replace(`[ ${BETA}, ${BETA} , {"type":"text","text":"a"} ]`, '[ {"type":"text","text":"a"} ]')
      .replace(`[{"type":"text","text":"b"},${BETA}]`, '[{"type":"text","text":"b"}]'),
  );
  const upstreamName = body('"alpha-sonnet-4.6"', SIGNED, '{"type":"text","text":"c"}', '');
  t.equal(
    sent(upstreamName),
    upstreamName.replace(SIGNED, 'EqQBsig').replace(`[ ${BETA}, ${BETA} , `, '[ ').replace(`,${BETA}]`, ']'),
    'the model already the upstream name: only the blocks',
  );
});

t.test('a message left with no block: left out, the messages around it joined (written from the parsed value)', async (t) => {
  const body = `{"model": "alpha-sonnet-4.6", "max_tokens": 64, "messages": [{"role": "user", "content": "first"}, {"role": "assistant", "content": [${BETA}]}, {"role": "user", "content": [{"type": "text", "text": "second"}]}, {"role": "assistant", "content": "ok"}]}`;
  t.same(JSON.parse(sent(body)), {
    model: 'alpha-sonnet-4.6',
    max_tokens: 64,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'first' },
          { type: 'text', text: 'second' },
        ],
      },
      { role: 'assistant', content: 'ok' },
    ],
  });
});

t.test('the model set where it stands: a name written with escapes, spacing before the body', async (t) => {
  t.equal(
    sent('\n {"mod\\u0065l" :"Alpha-Sonnet-4-6","max_tokens":1.10,"messages":[]}'),
    '\n {"mod\\u0065l" :"alpha-sonnet-4.6","max_tokens":1.10,"messages":[]}',
  );
  const out = passthrough('{"model":"alpha-sonnet-4.6"}');
  const usage = '"usage":{"input_tokens":1,"output_tokens":12345678901234567891}';
  t.equal(
    String(out.response(Buffer.from(`{"type":"message",${usage}}`)).body),
    `{"type":"message",${usage},"model":"alpha-sonnet-4.6"}`,
    'a reply without a model gets it last',
  );
  const stream = out.stream();
  t.equal(
    stream.event({ event: 'message_start', data: '{"message":{}, "n":1.10}' }),
    'event: message_start\ndata: {"message":{"model":"alpha-sonnet-4.6"}, "n":1.10}\n\n',
    'a message without members gets it',
  );
  t.equal(
    stream.event({ event: 'message_start', data: '{"message":null}' }),
    'event: message_start\ndata: {"message":{"model":"alpha-sonnet-4.6"}}\n\n',
    'no message object: written from the parsed event',
  );
});

t.test('a member to change standing twice: written from the parsed value, which is what the gateway read', async (t) => {
  t.equal(sent('{"model":"alpha-opus-4.6","max_tokens":1.10,"model":"Alpha-Sonnet-4-6"}'), '{"model":"alpha-sonnet-4.6","max_tokens":1.1}', 'the model');
  const thinking = `{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"${SIGNED}"}]}`;
  const written = `{"model":"alpha-sonnet-4.6","messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"","signature":"EqQBsig"}]}]}`;
  t.equal(sent(`{"model":"alpha-sonnet-4.6","messages":[],"messages":[${thinking}]}`), written, 'the messages');
  t.equal(
    sent(`{"model":"alpha-sonnet-4.6","messages":[{"content":[],${thinking.slice(1)}]}`),
    '{"model":"alpha-sonnet-4.6","messages":[{"content":[{"type":"thinking","thinking":"","signature":"EqQBsig"}],"role":"assistant"}]}',
    "a message's content",
  );
  t.equal(
    sent(`{"model":"alpha-sonnet-4.6","messages":[{"role":"assistant","content":[{"n":1.10},{"type":"thinking","signature":"x","signature":"${SIGNED}"}]}]}`),
    '{"model":"alpha-sonnet-4.6","messages":[{"role":"assistant","content":[{"n":1.10},{"type":"thinking","signature":"EqQBsig"}]}]}',
    "a block's signature: that block alone",
  );
  const out = passthrough('{"model":"alpha-sonnet-4.6"}');
  t.equal(
    String(out.response(Buffer.from('{"type":"message","model":"a","model":"b","n":1.10}')).body),
    '{"type":"message","model":"alpha-sonnet-4.6","n":1.1}',
    "the reply's model",
  );
  t.equal(
    out.stream().event({ event: 'message_start', data: '{"message":{"model":"a"},"message":{"model":"b"}}' }),
    'event: message_start\ndata: {"message":{"model":"alpha-sonnet-4.6"}}\n\n',
    "the stream's message",
  );
});

t.test('values are found whole: escaped quotes and backslashes, brackets in strings; a text cut short ends with it', async (t) => {
  const end = (text: string): number => valueEnd(Buffer.from(text), 0);
  t.equal(end('"a\\"b\\\\" ,'), 8);
  t.equal(end('{"}":["]",{"a\\\\":1}]}x'), 21);
  t.equal(end('-1.10e5}'), 7);
  t.same([end('"abc'), end('[{"a":1}'), end('12')], [4, 8, 2]);
});

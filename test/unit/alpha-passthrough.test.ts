import type { IncomingMessage, ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import t from 'tap';
import { MESSAGES_ENDPOINTS } from '../../plugins/ingress-messages/index.js';
import { BetaFilter, PRICE_NEUTRAL_BETAS } from '../../plugins/vendor-alpha/betas.js';
import { AlphaPassthrough } from '../../plugins/vendor-alpha/passthrough.js';
import { Call } from '../../src/chain/call.js';
import { sealed, TEST_SEAL } from '../helpers/reasoning-seal.js';
import { GatewayError } from '../../src/http/errors.js';
import { createLogger } from '../../src/log.js';
import { resolvedTo, runStream, thrown } from '../helpers/translate.js';

/** Alpha for Messages callers: the body and the answer pass through with only `model` changed (docs/formats/messages.md#alpha). */

const [CREATE, COUNT] = MESSAGES_ENDPOINTS as [NonNullable<(typeof MESSAGES_ENDPOINTS)[0]>, NonNullable<(typeof MESSAGES_ENDPOINTS)[1]>];

function logged(): { lines: string[]; log: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  return {
    lines,
    log: createLogger(
      'warn',
      new Writable({
        write: (chunk: Buffer, _e, done) => {
          lines.push(chunk.toString());
          done();
        },
      }),
    ),
  };
}

interface PassthroughOptions {
  stream?: boolean;
  count?: boolean;
  betas?: string;
  filter?: BetaFilter;
  /** The deployment the attempt goes to (the exchange's choice). */
  deployment?: string;
}

function passthroughCall(body: string, options: PassthroughOptions = {}): { translator: AlphaPassthrough; call: Call } {
  const headers = options.betas === undefined ? {} : { 'anthropic-beta': options.betas };
  const model = (JSON.parse(body) as { model: string }).model;
  const res = { headersSent: false, setHeader: () => res } as unknown as ServerResponse;
  const call = resolvedTo(
    new Call(options.count ? COUNT : CREATE, { headers, rawHeaders: [] } as unknown as IncomingMessage, res, 0, Buffer.from(body)),
    model,
  );
  call.stream = options.stream ?? false;
  call.deployment = options.deployment ?? null;
  return { translator: new AlphaPassthrough(call, { apiKey: 'alpha-key', betas: options.filter ?? new BetaFilter(PRICE_NEUTRAL_BETAS, logged().log) }), call };
}

const passthrough = (body: string, options: PassthroughOptions = {}): AlphaPassthrough => passthroughCall(body, options).translator;

const CLAUDE_CODE_LIKE =
  '{"model":"alpha-sonnet-4.6","max_tokens":32000,"system":[{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}}],' +
  '"messages":[{"role":"user","content":[{"type":"text","text":"Fix it","cache_control":{"type":"ephemeral"}}]},{"role":"system","content":"Reminder."}],' +
  '"thinking":{"type":"enabled","budget_tokens":4096},"metadata":{"user_id":"user_abc"},"context_management":{"edits":[]},"stream":true}';

t.test("the request: the caller's bytes, only model renamed; the gateway's version and key; price-neutral betas", async (t) => {
  const same = passthrough(CLAUDE_CODE_LIKE, { stream: true, betas: 'claude-code-20250219, interleaved-thinking-2025-05-14,context-1m-2025-08-07' }).request();
  t.equal(same.path, 'v1/messages');
  t.equal(same.body.toString(), CLAUDE_CODE_LIKE, 'byte for byte when the model is already the upstream name');
  t.same(same.headers, {
    'content-type': 'application/json',
    accept: 'text/event-stream',
    'anthropic-version': '2023-06-01',
    'x-api-key': 'alpha-key',
    'anthropic-beta': 'claude-code-20250219,interleaved-thinking-2025-05-14',
  });

  const alias = passthrough(CLAUDE_CODE_LIKE.replace('"alpha-sonnet-4.6"', '"Alpha-Sonnet-4-6"')).request();
  t.equal(alias.body.toString(), CLAUDE_CODE_LIKE, 'an alias becomes the upstream name; every other byte as sent');
  t.notOk('anthropic-beta' in alias.headers, 'no betas asked, none sent');

  const count = passthrough('{"model":"alpha-sonnet-4.6","messages":[{"role":"user","content":"Hi"}]}', { count: true }).request();
  t.same([count.path, count.headers['accept']], ['v1/messages/count_tokens', 'application/json']);
});

t.test("anthropic-beta: value by value, by the operator's prefixes; a dropped value warned once", async (t) => {
  const { lines, log } = logged();
  const defaults = new BetaFilter(PRICE_NEUTRAL_BETAS, log);
  t.equal(
    defaults.forwarded(['fine-grained-tool-streaming-2025-05-14,context-1m-2025-08-07', 'oauth-2025-04-20 , token-efficient-tools-2025-02-19']),
    'fine-grained-tool-streaming-2025-05-14,token-efficient-tools-2025-02-19',
  );
  defaults.forwarded('context-1m-2025-08-07');
  t.equal(defaults.forwarded(' , '), undefined);
  t.equal(lines.length, 2, 'one warning per dropped value');
  t.match(lines[0], /"beta":"context-1m-2025-08-07".*not listed in vendor-alpha betas.forward/);
  defaults.forwarded(`sk-ant-0123456789abcdef${'x'.repeat(4000)}`);
  t.equal(lines.length, 3);
  t.notMatch(lines[2], '0123456789abcdef', 'a key-shaped value is redacted in the warning');
  t.ok((lines[2] ?? '').length < 400, `and a long one cut (${(lines[2] ?? '').length} characters)`);
  const operator = new BetaFilter([...PRICE_NEUTRAL_BETAS, 'context-1m-'], log);
  t.equal(operator.forwarded('context-1m-2025-08-07'), 'context-1m-2025-08-07', 'a price-changing beta passes once the operator lists it');
});

t.test('anthropic-beta: a value the forwarded body needs passes whatever the list says', async (t) => {
  const { lines, log } = logged();
  const betas = 'claude-code-20250219,advanced-tool-use-2025-11-20,mid-conversation-tool-changes-2026-07-01';
  const deferred =
    '{"model":"alpha-sonnet-4.6","max_tokens":5,"messages":[{"role":"user","content":"Hi"}],"tools":[{"name":"t","input_schema":{"type":"object"},"defer_loading":true}]}';
  const filter = new BetaFilter(PRICE_NEUTRAL_BETAS, log);
  t.equal(
    passthrough(deferred, { betas, filter }).request().headers['anthropic-beta'],
    'claude-code-20250219,advanced-tool-use-2025-11-20',
    'defer_loading in the body: its beta forwarded',
  );
  t.equal(lines.length, 1, 'only the value nothing needs is warned about');
  const plain = deferred.replace(',"defer_loading":true', '');
  t.equal(passthrough(plain, { betas, filter }).request().headers['anthropic-beta'], 'claude-code-20250219', 'without the feature, the list decides');
});

t.test('the reply: relayed, model canonical, usage for the ledger; counts relayed and billed nothing', async (t) => {
  const message = {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'alpha-sonnet-4.6',
    content: [{ type: 'text', text: 'Hi' }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 5, cache_read_input_tokens: 100, cache_creation_input_tokens: 20, output_tokens: 7 },
  };
  const raw = Buffer.from(JSON.stringify(message));
  const out = passthrough('{"model":"alpha-sonnet-4.6","max_tokens":5,"messages":[]}').response(raw);
  t.equal(out.body, raw, 'the same bytes');
  t.same(
    out.usage,
    { promptTokens: 125, completionTokens: 7, cachedTokens: 100, cacheWriteTokens: 20 },
    'prompt = input + cache reads + cache writes, each also apart (priced at its rate)',
  );
  const renamed = passthrough('{"model":"alpha-sonnet-4.6","max_tokens":5,"messages":[]}').response(
    Buffer.from(JSON.stringify({ ...message, model: 'claude-sonnet-4-6-20260101' })),
  );
  t.equal(String(renamed.body), JSON.stringify(message), "the upstream's model name becomes the canonical ID, every other byte kept");
  t.match(
    thrown(() => passthrough('{"model":"alpha-sonnet-4.6"}').response(Buffer.from('{"type":"completion"}'))),
    { status: 502 },
  );

  const counting = passthrough('{"model":"alpha-sonnet-4.6","messages":[]}', { count: true });
  t.same(counting.response(Buffer.from('{"input_tokens":42}')), { body: Buffer.from('{"input_tokens":42}'), usage: { promptTokens: 0, completionTokens: 0 } });
  t.match(
    thrown(() => counting.response(Buffer.from('{"tokens":42}'))),
    { status: 502, message: /without input_tokens/ },
  );

  t.match(
    passthrough('{"model":"alpha-sonnet-4.6"}').error(
      429,
      { 'retry-after': '3' },
      Buffer.from('{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}'),
    ),
    { status: 429, message: 'slow down' },
  );
});

const START =
  'event: message_start\ndata: {"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":12,"cache_read_input_tokens":3,"output_tokens":1}}}\n\n';
const BODY =
  'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}\n\n' +
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Hmm"}}\n\n' +
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}\n\n' +
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n' +
  'event: ping\ndata: {"type":"ping"}\n\n' +
  'event: content_block_start\ndata: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}\n\n' +
  'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Yes"}}\n\n' +
  'event: content_block_stop\ndata: {"type":"content_block_stop","index":1}\n\n';
const DELTA = 'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":9}}\n\n';
const STOP = 'event: message_stop\ndata: {"type":"message_stop"}\n\n';

t.test('the stream: relayed as it came, model canonical, message_stop held until done()', async (t) => {
  const translator = passthrough('{"model":"alpha-sonnet-4.6","max_tokens":5,"messages":[],"stream":true}', { stream: true });
  const stream = translator.stream();
  const out = runStreamWith(stream, START + BODY + DELTA + STOP);
  const signature = /"signature":"(gw2\.[^"]+)"/.exec(out)?.[1] ?? '';
  t.same(
    TEST_SEAL.open('', signature),
    { family: 'alpha', kind: 'signature', data: 'EqQB', deployment: 'default' },
    "alpha's signature sealed, with the deployment",
  );
  t.equal(out.replace(signature, 'EqQB'), START.replace('"claude-x"', '"alpha-sonnet-4.6"') + BODY + DELTA, 'everything else but message_stop, byte for byte');
  t.equal(stream.done(), STOP, 'message_stop after the ledger row');
  t.same(stream.usage, { promptTokens: 15, completionTokens: 9, cachedTokens: 3 });
  t.equal(stream.relayedDeltas, 2, 'the thinking and text deltas; the signature is no output');

  const cut = translator.stream();
  runStreamWith(cut, START + BODY, false);
  t.same(
    cut.usage,
    { promptTokens: 15, completionTokens: 2, cachedTokens: 3, estimated: true },
    'before message_delta the relayed deltas stand in, as an estimate',
  );
  const spaced = translator.stream();
  runStreamWith(
    spaced,
    'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "EqQB"}}\n\n',
    false,
  );
  runStreamWith(
    spaced,
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"say \\"type\\":\\"signature_delta\\""}}\n\n',
    false,
  );
  t.equal(spaced.relayedDeltas, 1, 'a spaced signature is none either; a text that quotes one is a delta');
  t.match(
    thrown(() => cut.end()),
    { status: 502, message: /before message_stop/ },
  );
  t.match(
    thrown(() => runStreamWith(translator.stream(), START + BODY + DELTA + 'event: message_stop\ndata: {"type":"message_st\n\n')),
    { status: 502 },
    'a message_stop that is not JSON is not relayed as the last frame',
  );

  t.match(
    thrown(() => runStream(translator, START + 'event: error\ndata: {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}\n\n')),
    {
      status: 503,
      message: /failed mid-stream: Overloaded/,
    },
  );
  t.equal(
    translator.stream().fail(new GatewayError(502, 'cut')),
    'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"cut","code":"bad_gateway","param":null}}\n\n',
    'failures in the Messages shape',
  );
  const odd = translator.stream();
  t.equal(odd.usage, null, 'no usage before the upstream gave any');
  runStreamWith(odd, DELTA + 'event: message_start\ndata: {"type":"message_start"}\n\n', false);
  t.same(odd.usage, { promptTokens: 0, completionTokens: 0 }, 'odd orders and shapes are relayed, not fatal');
  const unnamed = translator.stream();
  t.equal(
    runStreamWith(unnamed, 'data: {"type":"ping"}\n\n', false),
    'event: ping\ndata: {"type":"ping"}\n\n',
    'a frame without its event name gets it from its type',
  );
});

/** Feeds SSE text to a stream translator; `end` runs its end() too. */
function runStreamWith(stream: ReturnType<AlphaPassthrough['stream']>, sse: string, end = true): string {
  let out = '';
  for (const block of sse.split('\n\n').filter(Boolean)) {
    const lines = block.split('\n');
    const event = lines.find((line) => line.startsWith('event: '))?.slice(7);
    const data = lines.find((line) => line.startsWith('data: '))?.slice(6) ?? '';
    out += stream.event({ event, data });
  }
  return end ? out + stream.end() : out;
}

t.test("thinking blocks in the gateway's envelope: alpha's own out of it, unchanged; another family's left out; any other body byte for byte", async (t) => {
  const envelope = (family: string, kind: string, data: string): string => sealed({ family, kind, data });
  const messages = [
    { role: 'user', content: 'Hi' },
    {
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'Weigh it.', signature: envelope('alpha', 'signature', 'EqQBsig') },
        { type: 'thinking', thinking: '', signature: envelope('alpha', 'redacted', 'EmwKAhgB') },
        { type: 'thinking', thinking: '', signature: envelope('beta', 'thought_signature', 'CpwBAdHt') },
        { type: 'thinking', thinking: 'Own.', signature: 'EqQBown' },
        { type: 'text', text: 'Hello.' },
      ],
    },
    { role: 'assistant', content: 'Plain.' },
    { role: 'user', content: 'More' },
  ];
  const sent = passthrough(JSON.stringify({ model: 'alpha-sonnet-4.6', max_tokens: 64, messages })).request();
  t.same((JSON.parse(sent.body.toString()) as { messages: unknown[] }).messages[1], {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: 'Weigh it.', signature: 'EqQBsig' },
      { type: 'redacted_thinking', data: 'EmwKAhgB' },
      { type: 'thinking', thinking: 'Own.', signature: 'EqQBown' },
      { type: 'text', text: 'Hello.' },
    ],
  });
  const own = JSON.stringify({
    model: 'alpha-sonnet-4.6',
    max_tokens: 64,
    messages: [messages[0], { role: 'assistant', content: [{ type: 'thinking', thinking: 'Own.', signature: 'EqQBown' }, 'odd'] }, messages[3]],
  });
  t.equal(passthrough(own).request().body.toString(), own, "alpha's own signatures: byte for byte");
});

t.test('the reply: thinking signatures and redacted data sealed for the caller, whole and streamed', async (t) => {
  const translator = passthrough('{"model":"alpha-sonnet-4.6","max_tokens":5,"messages":[]}');
  const reply = {
    id: 'msg_01',
    type: 'message',
    role: 'assistant',
    model: 'claude-x',
    content: [
      { type: 'thinking', thinking: 'Hmm', signature: 'EqQB' },
      { type: 'redacted_thinking', data: 'EmwK' },
      { type: 'text', text: 'Yes' },
    ],
    usage: { input_tokens: 1, output_tokens: 1 },
  };
  const body = JSON.parse(String(translator.response(Buffer.from(JSON.stringify(reply))).body)) as { model: string; content: Array<Record<string, string>> };
  t.equal(body.model, 'alpha-sonnet-4.6');
  const [thinking, redacted, text] = body.content;
  t.same(TEST_SEAL.open('', thinking?.['signature'] ?? ''), { family: 'alpha', kind: 'signature', data: 'EqQB', deployment: 'default' });
  t.same(TEST_SEAL.open('', redacted?.['data'] ?? ''), { family: 'alpha', kind: 'redacted', data: 'EmwK', deployment: 'default' });
  t.same(text, { type: 'text', text: 'Yes' });

  const streamed = runStreamWith(
    translator.stream(),
    START +
      'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"redacted_thinking","data":"EmwK"}}\n\n' +
      DELTA +
      STOP,
  );
  const data = /"data":"(gw2\.[^"]+)"/.exec(streamed)?.[1] ?? '';
  t.same(TEST_SEAL.open('', data), { family: 'alpha', kind: 'redacted', data: 'EmwK', deployment: 'default' }, 'a streamed redacted block sealed');
});

t.test("a seal that does not open, or another deployment's state, never reaches alpha: left out and announced", async (t) => {
  const own = sealed({ family: 'alpha', kind: 'signature', data: 'EqQBsig' }, 'east');
  const altered = own.slice(0, -2) + (own.endsWith('A') ? 'BB' : 'AA');
  const body = (signature: string): string =>
    JSON.stringify({
      model: 'alpha-sonnet-4.6',
      max_tokens: 64,
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Weigh it.', signature },
            { type: 'text', text: 'Hello.' },
          ],
        },
        { role: 'user', content: 'More' },
      ],
    });
  const contentSent = (translator: AlphaPassthrough): unknown =>
    (JSON.parse(translator.request().body.toString()) as { messages: Array<{ content: unknown }> }).messages[1]?.content;

  const onIssuer = passthroughCall(body(own), { deployment: 'east' });
  t.same(
    contentSent(onIssuer.translator),
    [
      { type: 'thinking', thinking: 'Weigh it.', signature: 'EqQBsig' },
      { type: 'text', text: 'Hello.' },
    ],
    'on the deployment that issued it: out of its seal',
  );
  t.equal(onIssuer.call.adjustments, null, 'nothing announced');

  const elsewhere = passthroughCall(body(own), { deployment: 'west' });
  t.same(contentSent(elsewhere.translator), [{ type: 'text', text: 'Hello.' }], 'on another deployment: left out');
  t.same(elsewhere.call.adjustments, [{ param: 'reasoning_state', action: 'dropped:deployment' }]);

  const tampered = passthroughCall(body(altered), { deployment: 'east' });
  const sent = tampered.translator.request().body.toString();
  t.notOk(sent.includes('EqQBsig') || sent.includes('gw2.'), 'neither the state nor the seal is sent');
  t.same(tampered.call.adjustments, [{ param: 'signature', action: 'dropped:unverified' }]);

  const otherKey = sealed({ family: 'alpha', kind: 'signature', data: 'EqQBsig' }, 'east', 'key_other');
  const replayed = passthroughCall(body(otherKey), { deployment: 'east' });
  t.notOk(replayed.translator.request().body.toString().includes('EqQBsig'), "another key's seal is not opened");
  t.same(replayed.call.adjustments, [{ param: 'signature', action: 'dropped:unverified' }]);
});

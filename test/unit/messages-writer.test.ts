import t from 'tap';
import { messageBody } from '../../plugins/ingress-messages/render.js';
import { MessagesStreamWriter } from '../../plugins/ingress-messages/sink.js';
import { messagesErrors } from '../../plugins/ingress-messages/wire.js';
import { shownSeal } from '../helpers/reasoning-seal.js';
import type { Reply } from '../../src/neutral/reply.js';
import { GatewayError } from '../../src/http/errors.js';
import { thrown } from '../helpers/translate.js';

/**
 * The Messages event writer and reply renderer, table-driven with literal fixtures: the neutral
 * events a vendor's stream translator emits → the exact Messages events (docs/formats/messages.md#stream).
 */

type Step = (w: MessagesStreamWriter) => string;
interface Frame {
  event: string;
  data: unknown;
}

const ENVELOPE = { id: 'msg_1', model: 'gamma-5.4', seal: shownSeal };
const ESTIMATE = 7;

/** Every frame must carry `event:` and a `data:` of the same type. */
function framesOf(sse: string): Frame[] {
  return sse
    .split('\n\n')
    .filter(Boolean)
    .map((text) => {
      const [eventLine, dataLine, ...rest] = text.split('\n');
      if (!eventLine?.startsWith('event: ') || !dataLine?.startsWith('data: ') || rest.length) throw new Error(`not an event+data frame: ${text}`);
      const data = JSON.parse(dataLine.slice(6)) as { type: string };
      if (data.type !== eventLine.slice(7)) throw new Error(`event name and data type differ: ${text}`);
      return { event: eventLine.slice(7), data };
    });
}

const start = (usage = { input_tokens: ESTIMATE, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }): Frame => ({
  event: 'message_start',
  data: {
    type: 'message_start',
    message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'gamma-5.4', content: [], stop_reason: null, stop_sequence: null, usage },
  },
});
const blockStart = (index: number, content_block: unknown): Frame => ({
  event: 'content_block_start',
  data: { type: 'content_block_start', index, content_block },
});
const delta = (index: number, d: unknown): Frame => ({ event: 'content_block_delta', data: { type: 'content_block_delta', index, delta: d } });
const blockStop = (index: number): Frame => ({ event: 'content_block_stop', data: { type: 'content_block_stop', index } });
const messageDelta = (stop_reason: string, usage: unknown): Frame => ({
  event: 'message_delta',
  data: { type: 'message_delta', delta: { stop_reason, stop_sequence: null }, usage },
});
const usage = (input: number, output: number, cached = 0) => ({
  input_tokens: input,
  output_tokens: output,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: cached,
});
const STOP: Frame = { event: 'message_stop', data: { type: 'message_stop' } };

const BETA_STATE = { family: 'beta', kind: 'thought_signature', data: 'CtQB' };

const cases: Array<[string, Step[], Frame[]]> = [
  [
    'text: message_start with the estimate, one text block, the exact input in message_delta, message_stop last',
    [
      (w) => w.start(0),
      (w) => w.text(0, ''),
      (w) => w.text(0, 'Hi'),
      (w) => w.text(0, ' there'),
      (w) => w.finish(0, 'stop'),
      (w) => w.close({ promptTokens: 10, completionTokens: 2 }),
      (w) => w.done(),
    ],
    [
      start(),
      blockStart(0, { type: 'text', text: '' }),
      delta(0, { type: 'text_delta', text: 'Hi' }),
      delta(0, { type: 'text_delta', text: ' there' }),
      blockStop(0),
      messageDelta('end_turn', usage(10, 2)),
      STOP,
    ],
  ],
  [
    "the vendor's counts at the start replace the estimate; cached tokens are not input tokens",
    [
      (w) => w.start(0, { promptTokens: 100, completionTokens: 1, cachedTokens: 40 }),
      (w) => w.text(0, 'x'),
      (w) => w.finish(0, 'length'),
      (w) => w.close({ promptTokens: 100, completionTokens: 5, cachedTokens: 40 }),
    ],
    [
      start(usage(60, 1, 40)),
      blockStart(0, { type: 'text', text: '' }),
      delta(0, { type: 'text_delta', text: 'x' }),
      blockStop(0),
      messageDelta('max_tokens', usage(60, 5, 40)),
    ],
  ],
  [
    "alpha's thinking: deltas, its own signature right before the stop, then text in the next block",
    [
      (w) => w.reasoning(0, 'Let me'),
      (w) => w.reasoning(0, ' think.'),
      (w) => w.reasoningState(0, { family: 'alpha', kind: 'signature', data: 'EqQBsig' }),
      (w) => w.text(0, 'Yes.'),
      (w) => w.finish(0, 'stop'),
      (w) => w.close(null),
    ],
    [
      start(),
      blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
      delta(0, { type: 'thinking_delta', thinking: 'Let me' }),
      delta(0, { type: 'thinking_delta', thinking: ' think.' }),
      delta(0, { type: 'signature_delta', signature: 'sealed(alpha.signature.EqQBsig)' }),
      blockStop(0),
      blockStart(1, { type: 'text', text: '' }),
      delta(1, { type: 'text_delta', text: 'Yes.' }),
      blockStop(1),
      messageDelta('end_turn', { output_tokens: 3 }),
    ],
  ],
  [
    "another family's state travels in our envelope; alpha's redacted thinking is a block of its own",
    [(w) => w.reasoningState(0, BETA_STATE), (w) => w.reasoningState(0, { family: 'alpha', kind: 'redacted', data: 'EmwKAhgB' }), (w) => w.finish(0, 'stop')],
    [
      start(),
      blockStart(0, { type: 'thinking', thinking: '', signature: '' }),
      delta(0, { type: 'signature_delta', signature: shownSeal(BETA_STATE) }),
      blockStop(0),
      blockStart(1, { type: 'redacted_thinking', data: 'sealed(alpha.redacted.EmwKAhgB)' }),
      blockStop(1),
    ],
  ],
  [
    'tool calls: input {} at the start, argument fragments as input_json_delta, indexes in start order, stop_reason tool_use',
    [
      (w) => w.text(0, 'Checking.'),
      (w) => w.toolCall(0, 0, { id: 'call_1', name: 'get_weather', arguments: '' }),
      (w) => w.toolArguments(0, 0, ''),
      (w) => w.toolArguments(0, 0, '{"city":'),
      (w) => w.toolArguments(0, 0, '"Oslo"}'),
      (w) => w.toolCall(0, 1, { id: 'call_2', name: 'get_time', arguments: '{}' }),
      (w) => w.finish(0, 'stop'),
      (w) => w.close({ promptTokens: 3, completionTokens: 20 }),
    ],
    [
      start(),
      blockStart(0, { type: 'text', text: '' }),
      delta(0, { type: 'text_delta', text: 'Checking.' }),
      blockStop(0),
      blockStart(1, { type: 'tool_use', id: 'call_1', name: 'get_weather', input: {} }),
      delta(1, { type: 'input_json_delta', partial_json: '{"city":' }),
      delta(1, { type: 'input_json_delta', partial_json: '"Oslo"}' }),
      blockStop(1),
      blockStart(2, { type: 'tool_use', id: 'call_2', name: 'get_time', input: {} }),
      delta(2, { type: 'input_json_delta', partial_json: '{}' }),
      blockStop(2),
      messageDelta('tool_use', usage(3, 20)),
    ],
  ],
  [
    'a tool call cut at max_tokens stays max_tokens; finish is written once',
    [(w) => w.toolCall(0, 0, { id: 'c', name: 'f', arguments: '{"a' }), (w) => w.finish(0, 'length'), (w) => w.finish(0, 'stop'), (w) => w.close(null)],
    [
      start(),
      blockStart(0, { type: 'tool_use', id: 'c', name: 'f', input: {} }),
      delta(0, { type: 'input_json_delta', partial_json: '{"a' }),
      blockStop(0),
      messageDelta('max_tokens', { output_tokens: 1 }),
    ],
  ],
  [
    'a tool_calls finish without calls is end_turn',
    [(w) => w.finish(0, 'tool_calls'), (w) => w.close(null)],
    [start(), messageDelta('end_turn', { output_tokens: 0 })],
  ],
  ['content_filter is refusal', [(w) => w.finish(0, 'content_filter'), (w) => w.close(null)], [start(), messageDelta('refusal', { output_tokens: 0 })]],
  [
    "the model's refusal: a text block of its own after the text, and stop_reason refusal",
    [
      (w) => w.text(0, 'Sorry. '),
      (w) => w.refusal(0, ''),
      (w) => w.refusal(0, 'I cannot'),
      (w) => w.refusal(0, ' help.'),
      (w) => w.finish(0, 'stop'),
      (w) => w.close({ promptTokens: 4, completionTokens: 3 }),
    ],
    [
      start(),
      blockStart(0, { type: 'text', text: '' }),
      delta(0, { type: 'text_delta', text: 'Sorry. ' }),
      blockStop(0),
      blockStart(1, { type: 'text', text: '' }),
      delta(1, { type: 'text_delta', text: 'I cannot' }),
      delta(1, { type: 'text_delta', text: ' help.' }),
      blockStop(1),
      messageDelta('refusal', usage(4, 3)),
    ],
  ],
  [
    'an empty refusal fragment refuses nothing',
    [(w) => w.refusal(0, ''), (w) => w.finish(0, 'stop'), (w) => w.close(null)],
    [start(), messageDelta('end_turn', { output_tokens: 0 })],
  ],
  [
    'an empty reasoning fragment opens the thinking block only; a close without a finish ends it as end_turn',
    [(w) => w.reasoning(0, ''), (w) => w.close(null)],
    [start(), blockStart(0, { type: 'thinking', thinking: '', signature: '' }), blockStop(0), messageDelta('end_turn', { output_tokens: 0 })],
  ],
];

t.test('neutral events → Messages events', async (t) => {
  for (const [label, steps, expected] of cases) {
    const writer = new MessagesStreamWriter(ENVELOPE, ESTIMATE);
    const sse = steps.map((step) => step(writer)).join('');
    t.same(framesOf(sse), expected, label);
  }
});

t.test('parallel tool calls interleaved by the vendor: a stopped block is never written to; the stream ends with an error', async (t) => {
  const writer = new MessagesStreamWriter(ENVELOPE, ESTIMATE);
  const sse =
    writer.toolCall(0, 0, { id: 'call_1', name: 'get_weather', arguments: '{"city":' }) +
    writer.toolCall(0, 1, { id: 'call_2', name: 'get_time', arguments: '{"zone":' });
  t.same(framesOf(sse).slice(-3), [
    blockStop(0),
    blockStart(1, { type: 'tool_use', id: 'call_2', name: 'get_time', input: {} }),
    delta(1, { type: 'input_json_delta', partial_json: '{"zone":' }),
  ]);
  t.equal(writer.toolArguments(0, 0, ''), '', 'an empty fragment writes nothing, wherever it belongs');
  const error = thrown(() => writer.toolArguments(0, 0, '"Oslo"}'));
  t.match(
    error,
    { status: 502, code: 'bad_gateway', message: 'The upstream sent arguments of a tool call after its next content block began.' },
    'call 0 after call 1 began',
  );
  t.equal(writer.relayedDeltas, 2, 'the refused fragment is not counted');
  t.same(
    framesOf(writer.toolArguments(0, 1, '"UTC"}')),
    [delta(1, { type: 'input_json_delta', partial_json: '"UTC"}' })],
    'the open block still takes its own',
  );
  writer.text(0, 'Done.');
  t.match(
    thrown(() => writer.toolArguments(0, 1, ' ')),
    { status: 502 },
    'nor after a text block began',
  );
});

t.test("the writer's state: complete after the finish, deltas counted, a failure as an error event", async (t) => {
  const writer = new MessagesStreamWriter(ENVELOPE, ESTIMATE);
  t.equal(writer.complete, false);
  writer.text(0, 'a');
  writer.reasoning(0, 'b');
  writer.toolCall(0, 0, { id: 'c', name: 'f', arguments: '{}' });
  writer.toolArguments(0, 5, 'ignored: no such call');
  t.equal(writer.relayedDeltas, 3, 'text, thinking and argument fragments');
  writer.finish(0, 'stop');
  t.equal(writer.complete, true);
  t.same(framesOf(writer.fail(new GatewayError(503, 'The alpha upstream failed mid-stream: Overloaded'))), [
    {
      event: 'error',
      data: {
        type: 'error',
        error: { type: 'overloaded_error', message: 'The alpha upstream failed mid-stream: Overloaded', code: 'service_unavailable', param: null },
      },
    },
  ]);
});

const reply = (choice: Partial<Reply['choices'][number]>, usage: Reply['usage'] = { promptTokens: 12, completionTokens: 5 }): Reply => ({
  choices: [{ content: null, refusal: null, toolCalls: [], finish: 'stop', ...choice }],
  usage,
});

t.test('a whole reply → a Messages message', async (t) => {
  const rows: Array<[string, Reply, unknown]> = [
    ['text', reply({ content: 'Hello.' }), { content: [{ type: 'text', text: 'Hello.' }], stop_reason: 'end_turn', usage: usage(12, 5) }],
    [
      'reasoning first, then text and tool calls; cached prompt tokens apart',
      reply(
        {
          content: 'Let me look.',
          reasoning: [
            { text: 'Hmm.', state: { family: 'alpha', kind: 'signature', data: 'sig' } },
            { text: '', state: { family: 'alpha', kind: 'redacted', data: 'red' } },
            { text: 'More.', state: BETA_STATE },
            { text: 'Shown only.', state: null },
          ],
          toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' }],
          finish: 'tool_calls',
        },
        { promptTokens: 100, completionTokens: 9, cachedTokens: 60 },
      ),
      {
        content: [
          { type: 'thinking', thinking: 'Hmm.', signature: 'sealed(alpha.signature.sig)' },
          { type: 'redacted_thinking', data: 'sealed(alpha.redacted.red)' },
          { type: 'thinking', thinking: 'More.', signature: shownSeal(BETA_STATE) },
          { type: 'thinking', thinking: 'Shown only.', signature: '' },
          { type: 'text', text: 'Let me look.' },
          { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } },
        ],
        stop_reason: 'tool_use',
        usage: usage(40, 9, 60),
      },
    ],
    [
      'tool calls with a stop finish are tool_use; empty arguments are {}',
      reply({ toolCalls: [{ id: 'c', name: 'f', arguments: '' }] }),
      { content: [{ type: 'tool_use', id: 'c', name: 'f', input: {} }], stop_reason: 'tool_use' },
    ],
    ['nothing at all', reply({ content: '' }), { content: [], stop_reason: 'end_turn' }],
    [
      "the model's refusal: a text block, stop_reason refusal",
      reply({ refusal: 'I cannot help.' }),
      { content: [{ type: 'text', text: 'I cannot help.' }], stop_reason: 'refusal' },
    ],
    [
      'text and a refusal: two text blocks',
      reply({ content: 'Sorry. ', refusal: 'I cannot help.' }),
      {
        content: [
          { type: 'text', text: 'Sorry. ' },
          { type: 'text', text: 'I cannot help.' },
        ],
        stop_reason: 'refusal',
      },
    ],
  ];
  for (const [label, input, expected] of rows) {
    const body = messageBody(input, ENVELOPE, 'gamma');
    t.match(body, { id: 'msg_1', type: 'message', role: 'assistant', model: 'gamma-5.4', stop_sequence: null, ...(expected as object) }, label);
    t.same(body['content'], (expected as { content: unknown }).content, `${label}: exactly these blocks`);
  }
});

t.test(
  "tool-call arguments that are not a JSON object: an empty input when cut at max_tokens, else the 502 of a body not in the vendor's format",
  async (t) => {
    const calls = [
      { id: 'c1', name: 'f', arguments: '{"city":"Oslo"}' },
      { id: 'c2', name: 'f', arguments: '{"city":"Os' },
    ];
    const cut = messageBody(
      reply({ content: 'Checking.', toolCalls: calls, finish: 'length' }, { promptTokens: 12, completionTokens: 100 }),
      ENVELOPE,
      'gamma',
    );
    t.same(
      cut['content'],
      [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'c1', name: 'f', input: { city: 'Oslo' } },
        { type: 'tool_use', id: 'c2', name: 'f', input: {} },
      ],
      'the whole call keeps its input; the one cut off has an empty one',
    );
    t.match(cut, { stop_reason: 'max_tokens', usage: usage(12, 100) }, 'the stop reason says so; the usage is kept');
    t.same(
      messageBody(reply({ toolCalls: [{ id: 'c', name: 'f', arguments: '[1' }], finish: 'length' }), ENVELOPE, 'beta')['content'],
      [{ type: 'tool_use', id: 'c', name: 'f', input: {} }],
      'an array cut off too',
    );
    const refusals: Array<[string, RegExp]> = [
      ['[1]', /^The gamma upstream sent a tool call's arguments string that is not a JSON object\.$/],
      ['{"a":', /^The gamma upstream sent a tool call's arguments string that is not JSON\.$/],
    ];
    for (const finish of ['stop', 'tool_calls'] as const) {
      for (const [args, message] of refusals) {
        const error = thrown(() => messageBody(reply({ toolCalls: [{ id: 'c', name: 'f', arguments: args }], finish }), ENVELOPE, 'gamma'));
        t.match(error, { status: 502, code: 'bad_gateway', message }, `arguments ${args}, finish ${finish}: the vendor's fault`);
      }
    }
  },
);

t.test('errors in the Messages shape: our status picks the type; our code and param ride along', async (t) => {
  const types: Array<[GatewayError['status'], string]> = [
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
    [402, 'billing_error'],
    [403, 'permission_error'],
    [404, 'not_found_error'],
    [413, 'request_too_large'],
    [429, 'rate_limit_error'],
    [500, 'api_error'],
    [502, 'api_error'],
    [503, 'overloaded_error'],
    [504, 'timeout_error'],
  ];
  for (const [status, type] of types) {
    const error = new GatewayError(status, 'why', { param: 'x' });
    t.same(JSON.parse(messagesErrors.body(error)), { type: 'error', error: { type, message: 'why', code: error.code, param: 'x' } }, `${status} → ${type}`);
  }
  t.equal(
    messagesErrors.frame(new GatewayError(504, 'slow')),
    'event: error\ndata: {"type":"error","error":{"type":"timeout_error","message":"slow","code":"upstream_timeout","param":null}}\n\n',
  );
});

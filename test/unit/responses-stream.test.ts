import t from 'tap';
import { responsesFormat } from '../../plugins/ingress-responses/format.js';
import type { ResponsesStream } from '../../plugins/ingress-responses/stream.js';
import { MAX_STORED_BYTES, turnOf } from '../../plugins/ingress-responses/turn.js';
import { GatewayError } from '../../src/http/errors.js';
import type { Reply } from '../../src/neutral/reply.js';
import { fixedIds as fixedItemIds, responsesCall } from '../helpers/responses-call.js';
import { unsealedText } from '../helpers/reasoning-seal.js';
import { thrown } from '../helpers/translate.js';

/**
 * The Responses output, table-driven: neutral stream events → the literal SSE events (ids fixed
 * as `resp_ID`, `msg_ID`, `fc_ID`, `rs_ID`), whole neutral replies → the literal response object,
 * failures after the 200, and what is staged for storage.
 */

type Json = Record<string, any>;
const ALPHA = { family: 'alpha', kind: 'signature', data: 'sig' };
const ENVELOPE = 'sealed(alpha.signature.sig)';
/** Fixed ids, and each sealed state shown as it was sealed (a fresh nonce each time). */
const fixedIds = (text: string): string => unsealedText(fixedItemIds(text));
const HEAD = '"id":"resp_ID","object":"response","created_at":1767225600';
const ECHO =
  '"background":false,"frequency_penalty":0,"instructions":null,"max_output_tokens":null,"max_tool_calls":null,"metadata":{},"parallel_tool_calls":true,"presence_penalty":0,' +
  '"previous_response_id":null,"prompt_cache_key":null,"reasoning":{"effort":null,"summary":null},"safety_identifier":null,"service_tier":"default","store":true,"temperature":1,' +
  '"text":{"format":{"type":"text"}},"tool_choice":"auto","tools":[],"top_logprobs":0,"top_p":1,"truncation":"disabled","user":null';
/** `completed_at` is the time the reply finished: fixtures say `"completed_at":"T"` (the Open Responses test checks it is a number). */
const fixed = (text: string): string => fixedIds(text).replace(/"completed_at":\d+/g, '"completed_at":"T"');
const IN_PROGRESS = `{${HEAD},"status":"in_progress","completed_at":null,"error":null,"incomplete_details":null,"model":"gamma-5.4","output":[],"usage":null,${ECHO}}`;
const ev = (type: string, sequence: number, rest: string): string =>
  `event: ${type}\ndata: {"type":"${type}","sequence_number":${sequence}${rest ? `,${rest}` : ''}}\n\n`;
const OPENING = ev('response.created', 0, `"response":${IN_PROGRESS}`) + ev('response.in_progress', 1, `"response":${IN_PROGRESS}`);
const MESSAGE = '"id":"msg_ID","type":"message","role":"assistant"';
const PART = (text: string): string => `{"type":"output_text","text":"${text}","annotations":[],"logprobs":[]}`;
const USAGE =
  '{"input_tokens":3,"input_tokens_details":{"cached_tokens":1},"output_tokens":7,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":10}';

function sink(body: Json = {}): ResponsesStream {
  return responsesFormat.output(responsesCall({ model: 'gamma-5.4', input: 'Hi', stream: true, ...body })).sink() as ResponsesStream;
}

t.test('reasoning, text and a call, as the reference API streams them', async (t) => {
  const s = sink();
  const out =
    s.start() +
    s.reasoning(0, 'Think') +
    s.reasoningState(0, ALPHA) +
    s.text(0, 'Hel') +
    s.text(0, 'lo') +
    s.toolCall(0, 0, { id: 'call_1', name: 'get', arguments: '{"a"' }) +
    s.toolArguments(0, 0, ':1}') +
    s.finish(0, 'tool_calls');
  const reasoning = `{"id":"rs_ID","type":"reasoning","status":"completed","summary":[{"type":"summary_text","text":"Think"}],"encrypted_content":"${ENVELOPE}"}`;
  const message = `{${MESSAGE},"status":"completed","content":[${PART('Hello')}]}`;
  const call = '{"id":"fc_ID","type":"function_call","status":"completed","call_id":"call_1","name":"get","arguments":"{\\"a\\":1}"}';
  const rs = '"item_id":"rs_ID","output_index":0,"summary_index":0';
  const msg = '"item_id":"msg_ID","output_index":1,"content_index":0';
  const fc = '"item_id":"fc_ID","output_index":2';
  t.equal(
    fixedIds(out),
    OPENING +
      ev('response.output_item.added', 2, '"output_index":0,"item":{"id":"rs_ID","type":"reasoning","status":"in_progress","summary":[]}') +
      ev('response.reasoning_summary_part.added', 3, `${rs},"part":{"type":"summary_text","text":""}`) +
      ev('response.reasoning_summary_text.delta', 4, `${rs},"delta":"Think"`) +
      ev('response.reasoning_summary_text.done', 5, `${rs},"text":"Think"`) +
      ev('response.reasoning_summary_part.done', 6, `${rs},"part":{"type":"summary_text","text":"Think"}`) +
      ev('response.output_item.done', 7, `"output_index":0,"item":${reasoning}`) +
      ev('response.output_item.added', 8, `"output_index":1,"item":{${MESSAGE},"status":"in_progress","content":[]}`) +
      ev('response.content_part.added', 9, `${msg},"part":${PART('')}`) +
      ev('response.output_text.delta', 10, `${msg},"delta":"Hel","logprobs":[]`) +
      ev('response.output_text.delta', 11, `${msg},"delta":"lo","logprobs":[]`) +
      ev('response.output_text.done', 12, `${msg},"text":"Hello","logprobs":[]`) +
      ev('response.content_part.done', 13, `${msg},"part":${PART('Hello')}`) +
      ev('response.output_item.done', 14, `"output_index":1,"item":${message}`) +
      ev(
        'response.output_item.added',
        15,
        '"output_index":2,"item":{"id":"fc_ID","type":"function_call","status":"in_progress","call_id":"call_1","name":"get","arguments":""}',
      ) +
      ev('response.function_call_arguments.delta', 16, `${fc},"delta":"{\\"a\\""`) +
      ev('response.function_call_arguments.delta', 17, `${fc},"delta":":1}"`) +
      ev('response.function_call_arguments.done', 18, `${fc},"name":"get","arguments":"{\\"a\\":1}"`) +
      ev('response.output_item.done', 19, `"output_index":2,"item":${call}`),
  );
  t.equal(s.close({ promptTokens: 3, completionTokens: 7, cachedTokens: 1 }), '', 'nothing more before completion');
  t.equal(
    fixed(s.done()),
    ev(
      'response.completed',
      20,
      `"response":{${HEAD},"status":"completed","completed_at":"T","error":null,"incomplete_details":null,"model":"gamma-5.4","output":[${reasoning},${message},${call}],"usage":${USAGE},${ECHO}}`,
    ),
    'after completion: the whole response',
  );
  t.equal(s.relayedDeltas, 5, 'reasoning, text and argument fragments');
  t.ok(s.complete);
});

t.test('a refusal: a refusal part after the text part, with its own delta and done events', async (t) => {
  const s = sink();
  const out = s.start() + s.text(0, 'Sorry. ') + s.refusal(0, '') + s.refusal(0, 'I cannot') + s.refusal(0, ' help.') + s.finish(0, 'stop');
  const refusal = '{"type":"refusal","refusal":"I cannot help."}';
  const message = `{${MESSAGE},"status":"completed","content":[${PART('Sorry. ')},${refusal}]}`;
  const text = '"item_id":"msg_ID","output_index":0,"content_index":0';
  const part = '"item_id":"msg_ID","output_index":0,"content_index":1';
  t.equal(
    fixedIds(out),
    OPENING +
      ev('response.output_item.added', 2, `"output_index":0,"item":{${MESSAGE},"status":"in_progress","content":[]}`) +
      ev('response.content_part.added', 3, `${text},"part":${PART('')}`) +
      ev('response.output_text.delta', 4, `${text},"delta":"Sorry. ","logprobs":[]`) +
      ev('response.output_text.done', 5, `${text},"text":"Sorry. ","logprobs":[]`) +
      ev('response.content_part.done', 6, `${text},"part":${PART('Sorry. ')}`) +
      ev('response.content_part.added', 7, `${part},"part":{"type":"refusal","refusal":""}`) +
      ev('response.refusal.delta', 8, `${part},"delta":"I cannot"`) +
      ev('response.refusal.delta', 9, `${part},"delta":" help."`) +
      ev('response.refusal.done', 10, `${part},"refusal":"I cannot help."`) +
      ev('response.content_part.done', 11, `${part},"part":${refusal}`) +
      ev('response.output_item.done', 12, `"output_index":0,"item":${message}`),
  );
  t.equal(s.relayedDeltas, 3, 'text and refusal fragments');
  s.close({ promptTokens: 3, completionTokens: 7, cachedTokens: 1 });
  t.equal(
    fixed(s.done()),
    ev(
      'response.completed',
      13,
      `"response":{${HEAD},"status":"completed","completed_at":"T","error":null,"incomplete_details":null,"model":"gamma-5.4","output":[${message}],"usage":${USAGE},${ECHO}}`,
    ),
  );

  const only = sink();
  const events = fixedIds(only.refusal(0, 'No.') + only.finish(0, 'stop'));
  t.match(
    events,
    ev('response.content_part.added', 3, '"item_id":"msg_ID","output_index":0,"content_index":0,"part":{"type":"refusal","refusal":""}'),
    'a refusal alone is the first part',
  );
  t.match(events, `"item":{${MESSAGE},"status":"completed","content":[{"type":"refusal","refusal":"No."}]}`);
});

t.test('a cut reply, a redacted run, one call only, and events that write nothing', async (t) => {
  const cut = sink();
  const text = fixedIds(cut.text(0, '') + cut.text(0, 'Hi') + cut.finish(0, 'length') + cut.finish(0, 'stop'));
  t.ok(text.startsWith(OPENING), 'an empty delta only opens the stream');
  t.match(
    text,
    ev('response.output_item.done', 7, `"output_index":0,"item":{${MESSAGE},"status":"incomplete","content":[${PART('Hi')}]}`),
    'the cut item is incomplete',
  );
  t.equal(text.split('event:').length - 1, 8, 'one finish only');
  cut.close(null);
  // No vendor count: the estimate the ledger bills ("Hi": 1 input token) and the one delta relayed.
  t.match(
    fixedIds(cut.done()),
    /^event: response\.incomplete\ndata: .*"status":"incomplete","completed_at":\d+,"error":null,"incomplete_details":\{"reason":"max_output_tokens"\}.*"usage":\{"input_tokens":1,"input_tokens_details":\{"cached_tokens":0\},"output_tokens":1,/,
  );

  const one = sink({ parallel_tool_calls: false });
  one.reasoning(0, '');
  one.reasoningState(0, { family: 'alpha', kind: 'redacted', data: 'r' });
  one.toolCall(0, 0, { id: 'c0', name: 'f', arguments: '' });
  t.equal(
    one.toolCall(0, 1, { id: 'c1', name: 'f', arguments: '{}' }) + one.toolArguments(0, 1, '{}') + one.toolArguments(0, 0, ''),
    '',
    'a second call and empty fragments write nothing',
  );
  one.finish(0, 'tool_calls');
  one.close(null);
  const done = JSON.parse(one.done().split('data: ')[1] ?? '{}') as Json;
  t.match(done['response'].output, [
    { type: 'reasoning', summary: [], encrypted_content: /^gw2\./ },
    { type: 'function_call', call_id: 'c0', arguments: '' },
  ]);
  t.equal(done['response'].output.length, 2, 'parallel_tool_calls: false keeps the first call');
  t.equal(one.relayedDeltas, 0);

  const late = sink();
  late.toolCall(0, 0, { id: 'c0', name: 'f', arguments: '' });
  late.text(0, 'then text');
  t.match(
    thrown(() => late.toolArguments(0, 0, '{}')),
    { status: 502 },
    'arguments after the call closed are an upstream error',
  );
});

t.test('failures after the 200: the error event, then response.failed', async (t) => {
  const error = new GatewayError(502, 'The gamma upstream could not be reached or failed: reset.');
  const flat = '"code":"bad_gateway","message":"The gamma upstream could not be reached or failed: reset.","param":null';
  const both = `${flat},"error":{"type":"upstream_error","code":"bad_gateway","message":"The gamma upstream could not be reached or failed: reset.","param":null}`;
  const failed = (sequence: number, output: string): string =>
    ev(
      'response.failed',
      sequence,
      `"response":{${HEAD},"status":"failed","completed_at":null,"error":{"code":"bad_gateway","message":"The gamma upstream could not be reached or failed: reset."},"incomplete_details":null,"model":"gamma-5.4","output":[${output}],"usage":null,${ECHO}}`,
    );
  t.equal(fixedIds(sink().fail(error)), OPENING + ev('error', 2, both) + failed(3, ''), 'before any event: opened, then failed');

  const s = sink();
  s.toolCall(0, 0, { id: 'c0', name: 'f', arguments: '{}' });
  s.text(0, 'partial');
  const tail = fixedIds(s.fail(error));
  const call = '{"id":"fc_ID","type":"function_call","status":"completed","call_id":"c0","name":"f","arguments":"{}"}';
  const cut = `{${MESSAGE},"status":"incomplete","content":[${PART('partial')}]}`;
  const closing =
    ev('response.output_text.done', 9, '"item_id":"msg_ID","output_index":1,"content_index":0,"text":"partial","logprobs":[]') +
    ev('response.content_part.done', 10, `"item_id":"msg_ID","output_index":1,"content_index":0,"part":${PART('partial')}`) +
    ev('response.output_item.done', 11, `"output_index":1,"item":${cut}`);
  t.equal(tail, closing + ev('error', 12, both) + failed(13, `${call},${cut}`), 'the open item ends incomplete, then the items so far in response.failed');
  t.equal(responsesFormat.errors.frame(error), ev('error', 0, both), 'the frame of a failure before any sink');
  t.equal(responsesFormat.errors.body(error), JSON.stringify(error.toEnvelope()));
});

const REPLY = (choice: Partial<Reply['choices'][number]>): Reply => ({
  choices: [{ content: null, refusal: null, toolCalls: [], finish: 'stop', ...choice }],
  usage: { promptTokens: 3, completionTokens: 7, cachedTokens: 1 },
});

t.test('whole replies: the response object, and what is staged for storage', async (t) => {
  const call = responsesCall({ model: 'gamma-5.4', input: 'Hi', parallel_tool_calls: false, previous_response_id: 'resp_prev', metadata: { a: 'b' } });
  const out = responsesFormat.output(call).render(
    REPLY({
      content: 'Hello',
      reasoning: [{ text: 'Think', state: ALPHA }],
      toolCalls: [
        { id: 'c0', name: 'f', arguments: '{}' },
        { id: 'c1', name: 'f', arguments: '{}' },
      ],
      finish: 'tool_calls',
    }),
  );
  t.same(out.usage, { promptTokens: 3, completionTokens: 7, cachedTokens: 1 });
  const body = JSON.parse(fixedIds(String(out.body))) as Json;
  t.same(body['output'], [
    { id: 'rs_ID', type: 'reasoning', status: 'completed', summary: [{ type: 'summary_text', text: 'Think' }], encrypted_content: ENVELOPE },
    { id: 'msg_ID', type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello', annotations: [], logprobs: [] }] },
    { id: 'fc_ID', type: 'function_call', status: 'completed', call_id: 'c0', name: 'f', arguments: '{}' },
  ]);
  t.match(body, {
    status: 'completed',
    incomplete_details: null,
    usage: JSON.parse(USAGE),
    parallel_tool_calls: false,
    previous_response_id: 'resp_prev',
    metadata: { a: 'b' },
    store: true,
  });
  const staged = turnOf(call).staged;
  t.match(
    staged,
    { id: (JSON.parse(String(out.body)) as Json)['id'], previousId: 'resp_prev', createdAt: 1767225600_000 },
    'staged under the id the caller got',
  );
  t.same(
    JSON.parse(fixedIds(staged?.items ?? '')),
    { input: [{ type: 'message', role: 'user', content: 'Hi' }], output: body['output'] },
    'the input as items, and the output',
  );

  const filtered = JSON.parse(
    String(
      responsesFormat.output(responsesCall({ model: 'gamma-5.4', input: 'Hi', store: false })).render(REPLY({ content: 'No', finish: 'content_filter' })).body,
    ),
  ) as Json;
  t.match(filtered, { status: 'incomplete', incomplete_details: { reason: 'content_filter' }, store: false, output: [{ status: 'incomplete' }] });
  const thinking = JSON.parse(
    String(
      responsesFormat.output(responsesCall({ model: 'gamma-5.4', input: 'Hi' })).render(REPLY({ reasoning: [{ text: '', state: null }], finish: 'length' }))
        .body,
    ),
  ) as Json;
  t.same(
    thinking['output'],
    [{ id: thinking['output'][0].id, type: 'reasoning', status: 'incomplete', summary: [] }],
    'cut while reasoning: the reasoning item is the incomplete one; without a state, no encrypted_content',
  );
});

t.test('a whole reply with a refusal: a refusal part after any text, stored with the response', async (t) => {
  const refusal = { type: 'refusal', refusal: 'I cannot help.' };
  const call = responsesCall({ model: 'gamma-5.4', input: 'Hi' });
  const body = JSON.parse(fixedIds(String(responsesFormat.output(call).render(REPLY({ refusal: 'I cannot help.' })).body))) as Json;
  t.match(body, { status: 'completed', incomplete_details: null });
  t.same(body['output'], [{ id: 'msg_ID', type: 'message', role: 'assistant', status: 'completed', content: [refusal] }], 'not an empty output');
  t.same(JSON.parse(fixedIds(turnOf(call).staged?.items ?? '')).output, body['output'], 'the stored output keeps it');
  const both = JSON.parse(
    String(responsesFormat.output(responsesCall({ model: 'gamma-5.4', input: 'Hi' })).render(REPLY({ content: 'Sorry. ', refusal: 'I cannot help.' })).body),
  ) as Json;
  t.same(both['output'][0].content, [{ type: 'output_text', text: 'Sorry. ', annotations: [], logprobs: [] }, refusal]);
});

t.test('a conversation over the stored-size bound is not stored, and says so', async (t) => {
  const call = responsesCall({ model: 'gamma-5.4', input: 'Hi' });
  const turn = turnOf(call);
  turn.continues([
    {
      id: 'resp_old',
      keyId: 'k',
      previousId: null,
      createdAt: 0,
      items: JSON.stringify({ input: [{ role: 'user', content: 'x'.repeat(MAX_STORED_BYTES - 200) }], output: [] }),
    },
  ]);
  const body = JSON.parse(String(responsesFormat.output(call).render(REPLY({ content: 'A reply that tips it over the bound.' })).body)) as Json;
  t.equal(body['store'], false);
  t.equal(turn.staged, null);
  t.equal(turn.overBound, true);
  const unmodelled = responsesCall({ model: 'gamma-5.4', input: 'Hi' }, null);
  t.match(
    thrown(() => turnOf(unmodelled).response({ status: 'in_progress', error: null, incomplete_details: null, output: [], usage: null })),
    { status: 500 },
  );
});

t.test('a text delta is the JSON of its event whatever the text holds (quotes, newlines, U+2028, emoji, lone surrogates)', async (t) => {
  const s = sink();
  s.start();
  for (const [index, delta] of ['say "hi"\n', '\u2028\\', '😀', '\ud800', '</script>'].entries()) {
    const expected = {
      type: 'response.output_text.delta',
      sequence_number: 4 + index,
      item_id: 'msg_ID',
      output_index: 0,
      content_index: 0,
      delta,
      logprobs: [],
    };
    const out = s.text(0, delta);
    const last = fixedIds(out.slice(out.lastIndexOf('event: ')));
    t.equal(last, `event: response.output_text.delta\ndata: ${JSON.stringify(expected)}\n\n`, `delta ${index}`);
  }
});

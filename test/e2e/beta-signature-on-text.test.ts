import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import t from 'tap';
import { responsesFormat } from '../../plugins/ingress-responses/format.js';
import type { ResponsesStream } from '../../plugins/ingress-responses/stream.js';
import { openedBy } from '../helpers/reasoning-seal.js';
import { THINKING } from '../../src/simulators/reply-plan.js';
import { BETA_UPSTREAM_KEY, raw, startHarness, type Harness } from '../helpers/harness.js';
import { lastUpstreamBody, sdk } from '../helpers/messages-client.js';
import { responsesCall } from '../helpers/responses-call.js';

/**
 * A streamed beta reply that thinks and answers without a call carries its thought signature on
 * its last text part, after the text went out (the simulator does this). The last thing a reply
 * shows is the answer (a client such as `claude -p` takes the last content block for it): the
 * signature never becomes a block, item or delta after the text in any format. The gateway keeps
 * it under the digest of the turn's text, and gives it back to beta on the turn's last part when
 * the caller replays the turn, by previous_response_id or by sending the history. A whole reply
 * carries it before the text, in its reasoning. A call turn's signature comes with the call, before it.
 */

type Json = Record<string, any>;
interface Event {
  event: string;
  data: Json;
}

const THOUGHT = THINKING.join('');
const ANSWER = 'Hello from the';
const QUESTION = 'Hi [[sim:tokens=3]]';

const eventsOf = (text: string): Event[] =>
  text
    .trim()
    .split('\n\n')
    .map((frame) => ({
      event: frame.split('\n')[0]?.slice('event: '.length) ?? '',
      data: JSON.parse(frame.split('\n')[1]?.slice('data: '.length) ?? 'null') as Json,
    }));

/** The beta state a gateway's seal holds for the key `keyId` (the test fails on anything else). */
async function betaSignature(h: Harness, keyId: string, envelope: unknown): Promise<string> {
  const state = await openedBy(h.store, keyId, envelope);
  if (state?.family !== 'beta') throw new Error(`not a beta state: ${String(envelope)}`);
  return state.data;
}

/** The thought signature of the last part of the model turn of the last request beta received. */
const replayed = (h: Harness): unknown => (lastUpstreamBody(h.beta) as Json)['contents'][1].parts.at(-1).thoughtSignature;

/**
 * The signature the vendor put on the last part of the stream it sent for the last request it
 * received (the simulator signs deterministically: the same request, sent to it again, is signed
 * the same).
 */
async function streamedSignature(h: Harness): Promise<string> {
  const last = h.beta.requests.at(-1);
  const res = await fetch(`${h.beta.url}${last?.path ?? ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-goog-api-key': BETA_UPSTREAM_KEY },
    body: last?.body ?? '',
  });
  const signatures = [...(await res.text()).matchAll(/"thoughtSignature":"([^"]+)"/g)].map((match) => match[1]);
  t.equal(signatures.length, 1, 'the vendor signed one part of the stream');
  return signatures[0] ?? '';
}

t.test('Responses: the message is the last item, whole and streamed; the signature replayed by previous_response_id and by the items', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const post = (body: Json) =>
    raw(h.origin, 'POST', '/v1/responses', { headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const ask = { model: 'beta-3-flash', input: QUESTION, reasoning: { effort: 'low' } };

  const whole = (await post(ask)).json() as Json;
  t.match(
    whole['output'],
    [
      { type: 'reasoning', summary: [{ text: THOUGHT }], encrypted_content: /^gw2\./ },
      { type: 'message', content: [{ text: ANSWER }] },
    ],
    'whole: reasoning (with the signature), message',
  );
  t.equal(whole['output'].length, 2);

  const events = eventsOf((await post({ ...ask, stream: true })).text);
  const signature = await streamedSignature(h);
  t.same(
    events.filter((e) => e.event === 'response.output_item.added').map((e) => e.data['item'].type),
    ['reasoning', 'message'],
    'no item after the message',
  );
  const completed = events.at(-1) as Event;
  t.equal(completed.event, 'response.completed');
  const output = completed.data['response'].output as Json[];
  t.match(
    output,
    [
      { type: 'reasoning', summary: [{ text: THOUGHT }] },
      { type: 'message', content: [{ text: ANSWER }] },
    ],
    'the response: reasoning, then the message last',
  );
  t.equal(output.length, 2);

  const next = await post({ model: 'beta-3-flash', previous_response_id: completed.data['response'].id, input: 'And then?', reasoning: { effort: 'low' } });
  t.equal(next.status, 200);
  t.equal(replayed(h), signature, 'continued by previous_response_id: the signature on the last part');

  // Codex sends store: false and the items back itself.
  const items = eventsOf((await post({ ...ask, store: false, stream: true })).text).flatMap((e) =>
    e.event === 'response.output_item.done' ? [e.data['item'] as Json] : [],
  );
  t.equal(await streamedSignature(h), signature, 'the same answer, signed the same');
  const sent = await post({
    model: 'beta-3-flash',
    input: [{ role: 'user', content: QUESTION }, ...items, { role: 'user', content: 'And then?' }],
    reasoning: { effort: 'low' },
    store: false,
  });
  t.equal(sent.status, 200);
  t.equal(replayed(h), signature, 'the items sent back: the signature on the last part');
});

t.test('Responses sink: a late state goes to the run its output followed; with no run before, a run of its own', async (t) => {
  const sink = (): ResponsesStream =>
    responsesFormat.output(responsesCall({ model: 'beta-3-flash', input: 'Hi', stream: true }, 'beta-3-flash')).sink() as ResponsesStream;
  const state = { family: 'beta', kind: 'thought_signature', data: 'sig' };
  const output = (s: ResponsesStream): Json[] => {
    s.finish(0, 'stop');
    s.close({ promptTokens: 1, completionTokens: 1 });
    return JSON.parse(s.done().split('data: ')[1] ?? '{}').response.output as Json[];
  };

  const late = sink();
  late.reasoning(0, 'Hm.');
  late.text(0, 'Yes.');
  t.equal(late.reasoningState(0, state), '', 'no event: the item is done');
  t.match(output(late), [{ type: 'reasoning', summary: [{ text: 'Hm.' }], encrypted_content: /^gw2\./ }, { type: 'message' }]);

  const alone = sink();
  alone.text(0, 'Yes.');
  t.match(alone.reasoningState(0, state), /response\.output_item\.added/);
  t.match(output(alone), [{ type: 'message' }, { type: 'reasoning', summary: [], encrypted_content: /^gw2\./ }], 'no reasoning before to give it to');
});

t.test('Messages: the text is the last block, streamed too; the signature replayed; a call turn ends with its tool_use', async (t) => {
  const h = await startHarness(t);
  const { id: keyId, key } = await h.createKey();
  const client = sdk(h, key);
  const question: Anthropic.MessageParam = { role: 'user', content: QUESTION };
  const params = { model: 'beta-3-flash', max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 } as const, messages: [question] };

  const whole = await client.messages.create(params);
  t.match(
    whole.content,
    [
      { type: 'thinking', thinking: THOUGHT, signature: /^gw2\./ },
      { type: 'text', text: ANSWER },
    ],
    'whole: one thinking block with its signature, then the text',
  );
  t.not(await betaSignature(h, keyId, (whole.content[0] as Anthropic.ThinkingBlock).signature), '');

  const res = await raw(h.origin, 'POST', '/v1/messages', {
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ ...params, stream: true }),
  });
  const blocks = eventsOf(res.text).filter((e) => e.event.startsWith('content_block_'));
  t.same(
    blocks.filter((e) => e.event !== 'content_block_delta').map((e) => [e.event, e.data['index']]),
    [0, 1].flatMap((index) => [
      ['content_block_start', index],
      ['content_block_stop', index],
    ]),
    'two blocks, each started and stopped in turn',
  );
  const streamed = await client.messages.stream(params).finalMessage();
  t.match(
    streamed.content,
    [
      { type: 'thinking', thinking: THOUGHT },
      { type: 'text', text: ANSWER },
    ],
    'the thoughts, then the text',
  );
  t.equal(streamed.content.length, 2, 'nothing after the text: the last block is the answer');
  const signature = await streamedSignature(h);

  await client.messages.create({ ...params, messages: [question, { role: 'assistant', content: streamed.content }, { role: 'user', content: 'And then?' }] });
  t.equal(replayed(h), signature, 'handed back, the signature reaches the vendor on the last part');
  await client.messages.create({ ...params, messages: [question, { role: 'assistant', content: ANSWER }, { role: 'user', content: 'And then?' }] });
  t.equal(replayed(h), signature, 'the text alone handed back: likewise');

  const tools: Anthropic.Tool[] = [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
  const call = await client.messages.stream({ ...params, tools, messages: [{ role: 'user', content: 'Weather in Oslo?' }] }).finalMessage();
  t.equal(call.content.at(-1)?.type, 'tool_use', 'a call turn: the tool_use last, its signature before it');
  t.match(
    call.content.find((block) => block.type === 'thinking'),
    { signature: /^gw2\./ },
  );
});

t.test('chat: no thinking_blocks delta after the text; the signature replayed from the text handed back', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const client = h.client(key);
  const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: QUESTION };
  const params = { model: 'beta-3-flash', reasoning_effort: 'low' as const, messages: [question] };

  const whole = (await client.chat.completions.create(params)).choices[0]?.message as unknown as Json;
  t.match(whole['thinking_blocks'], [{ type: 'thinking', thinking: THOUGHT, signature: /^gw2\./ }], 'whole: the signature with the thoughts');

  const deltas: Json[] = [];
  for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) if (chunk.choices[0]) deltas.push(chunk.choices[0].delta);
  const firstText = deltas.findIndex((delta) => delta['content']);
  t.same(
    deltas.slice(firstText).flatMap((delta) => delta['thinking_blocks'] ?? []),
    [],
    'nothing of the reasoning after the text',
  );
  const content = deltas.map((delta) => delta['content'] ?? '').join('');
  t.equal(content, ANSWER);
  const signature = await streamedSignature(h);

  await client.chat.completions.create({ ...params, messages: [question, { role: 'assistant', content }, { role: 'user', content: 'And then?' }] });
  t.equal(replayed(h), signature, 'handed back, the signature reaches the vendor on the last part');

  const other = await startHarness(t, { beta: h.beta });
  const stranger = other.client((await other.createKey()).key);
  await stranger.chat.completions.create({ ...params, messages: [question, { role: 'assistant', content }, { role: 'user', content: 'And then?' }] });
  t.equal(replayed(h), undefined, 'another key sending the same text gets nothing kept for this one');
});

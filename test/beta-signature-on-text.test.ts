import type Anthropic from '@anthropic-ai/sdk';
import type OpenAI from 'openai';
import t from 'tap';
import { responsesFormat } from '../plugins/ingress-responses/format.js';
import type { ResponsesStream } from '../plugins/ingress-responses/stream.js';
import { decodeReasoningState } from '../src/neutral/reasoning-state.js';
import { THINKING } from '../src/simulators/reply-plan.js';
import { raw, startHarness, type Harness } from './helpers/harness.js';
import { lastUpstreamBody, sdk } from './helpers/messages-client.js';
import { responsesCall } from './helpers/responses-call.js';

/**
 * A streamed beta reply that thinks and answers without a call carries its thought signature on
 * its last text part, after the text went out (the simulator does this). The signature is the
 * state of the turn's one reasoning run, as in the whole reply: the Responses output is
 * reasoning then message (its reasoning item's `output_item.done` went out before the signature,
 * the response carries it), Messages gets an empty thinking block with the signature after the
 * text (a block cannot be reopened), chat a `thinking_blocks` delta after the text; and each is
 * replayed to the vendor on the turn's last part.
 */

type Json = Record<string, any>;
type Event = { event: string; data: Json };

const THOUGHT = THINKING.join('');
const ANSWER = 'Hello from the';
const QUESTION = 'Hi [[sim:tokens=3]]';

const eventsOf = (text: string): Event[] =>
  text
    .trim()
    .split('\n\n')
    .map((frame) => ({ event: frame.split('\n')[0]?.slice('event: '.length) ?? '', data: JSON.parse(frame.split('\n')[1]?.slice('data: '.length) ?? 'null') as Json }));

/** The beta state an envelope holds (the test fails on anything else). */
function betaSignature(envelope: unknown): string {
  const state = decodeReasoningState(String(envelope));
  if (state?.family !== 'beta') throw new Error(`not a beta state: ${String(envelope)}`);
  return state.data;
}

/** The thought signature of the last part of the model turn of the last request beta received. */
const replayed = (h: Harness): unknown => (lastUpstreamBody(h.beta) as Json)['contents'][1].parts.at(-1).thoughtSignature;

t.test('Responses: reasoning then message, whole and streamed; the signature on the reasoning item; replayed', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const post = (body: Json) =>
    raw(h.origin, 'POST', '/v1/responses', { headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const ask = { model: 'beta-3-flash', input: QUESTION, reasoning: { effort: 'low' } };

  const whole = (await post(ask)).json() as Json;
  t.match(whole['output'], [{ type: 'reasoning', summary: [{ text: THOUGHT }], encrypted_content: /^gw1\./ }, { type: 'message', content: [{ text: ANSWER }] }], 'whole: reasoning, message');
  t.equal(whole['output'].length, 2);

  const events = eventsOf((await post({ ...ask, stream: true })).text);
  t.same(events.filter((e) => e.event === 'response.output_item.added').map((e) => e.data['item'].type), ['reasoning', 'message'], 'no second reasoning item');
  t.match(events.find((e) => e.event === 'response.output_item.done')?.data['item'], { type: 'reasoning', encrypted_content: null }, 'the item was done before the signature came');
  const completed = events.at(-1) as Event;
  t.equal(completed.event, 'response.completed');
  const output = completed.data['response'].output as Json[];
  t.match(output, [{ type: 'reasoning', summary: [{ text: THOUGHT }], encrypted_content: /^gw1\./ }, { type: 'message', content: [{ text: ANSWER }] }], 'the response: as whole');
  t.equal(output.length, 2);
  const signature = betaSignature(output[0]?.['encrypted_content']);

  const next = await post({ model: 'beta-3-flash', previous_response_id: completed.data['response'].id, input: 'And then?', reasoning: { effort: 'low' } });
  t.equal(next.status, 200);
  t.equal(replayed(h), signature, 'the stored response gives the signature back on the last part');
});

t.test('Responses sink: a late state goes to the run its output followed; with no run before, a run of its own', async (t) => {
  const sink = (): ResponsesStream => responsesFormat.output(responsesCall({ model: 'beta-3-flash', input: 'Hi', stream: true }, 'beta-3-flash')).sink() as ResponsesStream;
  const state = { family: 'beta', kind: 'thought_signature', data: 'sig' };
  const output = (s: ResponsesStream): Json[] => {
    s.finish(0, 'stop');
    s.close({ promptTokens: 1, completionTokens: 1 });
    return JSON.parse(s.done().split('data: ')[1] ?? '{}')['response'].output as Json[];
  };

  const late = sink();
  late.reasoning(0, 'Hm.');
  late.text(0, 'Yes.');
  t.equal(late.reasoningState(0, state), '', 'no event: the item is done');
  t.match(output(late), [{ type: 'reasoning', summary: [{ text: 'Hm.' }], encrypted_content: /^gw1\./ }, { type: 'message' }]);

  const alone = sink();
  alone.text(0, 'Yes.');
  t.match(alone.reasoningState(0, state), /response\.output_item\.added/);
  t.match(output(alone), [{ type: 'message' }, { type: 'reasoning', summary: [], encrypted_content: /^gw1\./ }], 'no reasoning before to give it to');
});

t.test('Messages: the signature in an empty thinking block after the text, well-formed, replayed', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const client = sdk(h, key);
  const question: Anthropic.MessageParam = { role: 'user', content: QUESTION };
  const params = { model: 'beta-3-flash', max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 } as const, messages: [question] };

  const whole = await client.messages.create(params);
  t.match(whole.content, [{ type: 'thinking', thinking: THOUGHT, signature: /^gw1\./ }, { type: 'text', text: ANSWER }], 'whole: one thinking block with its signature');

  const res = await raw(h.origin, 'POST', '/v1/messages', { headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify({ ...params, stream: true }) });
  const blocks = eventsOf(res.text).filter((e) => e.event.startsWith('content_block_'));
  t.same(
    blocks.filter((e) => e.event !== 'content_block_delta').map((e) => [e.event, e.data['index']]),
    [0, 1, 2].flatMap((index) => [['content_block_start', index], ['content_block_stop', index]]),
    'each block started and stopped in turn, indexes contiguous',
  );
  const streamed = await client.messages.stream(params).finalMessage();
  t.match(streamed.content, [{ type: 'thinking', thinking: THOUGHT, signature: '' }, { type: 'text', text: ANSWER }, { type: 'thinking', thinking: '', signature: /^gw1\./ }]);
  const signature = betaSignature((streamed.content[2] as Anthropic.ThinkingBlock).signature);

  await client.messages.create({ ...params, messages: [question, { role: 'assistant', content: streamed.content }, { role: 'user', content: 'And then?' }] });
  t.equal(replayed(h), signature, 'handed back, the signature reaches the vendor on the last part');
});

t.test('chat: the thinking_blocks delta after the text carries the thoughts and the signature, as the whole reply', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const client = h.client(key);
  const question: OpenAI.ChatCompletionMessageParam = { role: 'user', content: QUESTION };
  const params = { model: 'beta-3-flash', reasoning_effort: 'low' as const, messages: [question] };

  const whole = (await client.chat.completions.create(params)).choices[0]?.message as unknown as Json;
  t.match(whole['thinking_blocks'], [{ type: 'thinking', thinking: THOUGHT, signature: /^gw1\./ }]);

  const deltas: Json[] = [];
  for await (const chunk of await client.chat.completions.create({ ...params, stream: true })) if (chunk.choices[0]) deltas.push(chunk.choices[0].delta);
  const blocks = deltas.flatMap((delta) => delta['thinking_blocks'] ?? []);
  t.match(blocks, [{ type: 'thinking', thinking: THOUGHT, signature: /^gw1\./ }], 'one block, with the thoughts');
  t.equal(blocks.length, 1);
  const content = deltas.map((delta) => delta['content'] ?? '').join('');
  t.equal(content, ANSWER);

  const history = [question, { role: 'assistant', content, thinking_blocks: blocks }, { role: 'user', content: 'And then?' }];
  await client.chat.completions.create({ ...params, messages: history as OpenAI.ChatCompletionMessageParam[] });
  t.equal(replayed(h), betaSignature(blocks[0]['signature']), 'handed back, the signature reaches the vendor on the last part');
});

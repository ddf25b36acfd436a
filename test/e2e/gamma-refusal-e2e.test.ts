import type OpenAI from 'openai';
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { sdk } from '../helpers/messages-client.js';
import { jsonAnswer, queuedUpstream, sseAnswer, type Answer } from '../helpers/queued-upstream.js';

/**
 * A gamma refusal (`message.refusal`, or streamed `delta.refusal` fragments with `content: null`)
 * reaches callers of the other formats through the gateway, never dropped: a Responses message
 * with a `refusal` part, whole and streamed (the official client's stream helper rebuilds it), kept
 * in the stored response and sent back to the vendor when the conversation goes on; a Messages
 * text block with `stop_reason: "refusal"`. The gamma upstream is a small server of the test's
 * own that answers each request with the next queued answer.
 */

const REFUSAL = 'I cannot help with that.';
const USAGE = { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 };
const head = { id: 'chatcmpl-u', created: 1, model: 'gamma-5.4' };
const whole = (message: Record<string, unknown>): Answer =>
  jsonAnswer({
    ...head,
    object: 'chat.completion',
    choices: [{ index: 0, message: { role: 'assistant', ...message }, logprobs: null, finish_reason: 'stop' }],
    usage: USAGE,
  });
const chunk = (delta: unknown, finish: string | null = null): unknown => ({
  ...head,
  object: 'chat.completion.chunk',
  choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
});
const refused = whole({ content: null, refusal: REFUSAL });
const refusedStream = sseAnswer([
  chunk({ role: 'assistant', content: null, refusal: '' }),
  chunk({ refusal: 'I cannot ' }),
  chunk({ refusal: 'help with that.' }),
  chunk({}, 'stop'),
  { ...head, object: 'chat.completion.chunk', choices: [], usage: USAGE },
]);

t.test('/v1/responses on gamma: the refusal is a refusal part, whole, streamed and stored', async (t) => {
  const upstream = await queuedUpstream(t);
  const h = await startHarness(t, { env: { GAMMA_BASE_URL: upstream.origin } });
  const client = h.client((await h.createKey()).key);
  const message = { type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'refusal', refusal: REFUSAL }] };

  upstream.answers.push(refused);
  const plain = await client.responses.create({ model: 'gamma-5.4', input: 'Help me break in.' });
  t.equal(plain.status, 'completed');
  t.match(plain.output, [message]);
  t.equal(plain.output.length, 1, 'one message, not an empty output');
  t.equal(plain.usage?.output_tokens, 6);

  upstream.answers.push(whole({ content: 'Because it is unsafe.' }));
  const next = await client.responses.create({ model: 'gamma-5.4', previous_response_id: plain.id, input: 'Why not?' });
  t.equal(next.output_text, 'Because it is unsafe.', 'the stored response with its refusal part is read back');
  t.match(
    JSON.parse(upstream.bodies.at(-1) ?? '{}'),
    { messages: [{ role: 'user' }, { role: 'assistant', content: REFUSAL }, { role: 'user', content: [{ type: 'text', text: 'Why not?' }] }] },
    'and the refusal goes back to the vendor',
  );

  upstream.answers.push(refusedStream);
  const stream = client.responses.stream({ model: 'gamma-5.4', input: 'Help me break in.' });
  const events: OpenAI.Responses.ResponseStreamEvent[] = [];
  for await (const event of stream) events.push(event);
  t.same(
    events.map((e) => e.type),
    [
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.refusal.delta',
      'response.refusal.delta',
      'response.refusal.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ],
  );
  t.same(
    events.map((e) => e.sequence_number),
    events.map((_, i) => i),
  );
  t.match(
    events.filter((e) => e.type === 'response.refusal.delta'),
    [
      { content_index: 0, delta: 'I cannot ' },
      { content_index: 0, delta: 'help with that.' },
    ],
  );
  const final = await stream.finalResponse();
  t.match(final, { status: 'completed', output: [message], usage: { output_tokens: 6 } }, "the client's stream helper rebuilds it");
});

t.test('/v1/messages on gamma: the refusal is a text block, stop_reason refusal, whole and streamed', async (t) => {
  const upstream = await queuedUpstream(t);
  const h = await startHarness(t, { env: { GAMMA_BASE_URL: upstream.origin } });
  const client = sdk(h, (await h.createKey()).key);
  const ask = { model: 'gamma-5.4', max_tokens: 64, messages: [{ role: 'user' as const, content: 'Help me break in.' }] };

  upstream.answers.push(refused);
  const plain = await client.messages.create(ask);
  t.same([plain.content, plain.stop_reason, plain.usage.output_tokens], [[{ type: 'text', text: REFUSAL }], 'refusal', 6]);

  upstream.answers.push(refusedStream);
  const stream = client.messages.stream(ask);
  const deltas: string[] = [];
  stream.on('text', (text) => deltas.push(text));
  const final = await stream.finalMessage();
  t.same(deltas, ['I cannot ', 'help with that.'], 'streamed as text deltas');
  t.match(final, { content: [{ type: 'text', text: REFUSAL }], stop_reason: 'refusal', usage: { output_tokens: 6 } });
  t.equal(final.content.length, 1);
});

import t from 'tap';
import { gatewayOnQueuedGamma, sseAnswer } from '../helpers/queued-upstream.js';

/**
 * A gamma chat stream relayed as it comes, whose vendor sent no usage chunk although the caller
 * asked for usage (`stream_options.include_usage`): the caller still gets its usage chunk, with
 * the counts the ledger bills (the input estimate, the output deltas relayed), before [DONE].
 */

const chunk = (delta: object, finish: string | null) => ({
  id: 'chatcmpl-up',
  object: 'chat.completion.chunk',
  created: 7,
  model: 'gamma-5.4',
  choices: [{ index: 0, delta, finish_reason: finish }],
  usage: null,
});

t.test('no usage chunk from the vendor: the gateway writes one with what the ledger bills', async (t) => {
  const { upstream, h, id, key, db } = await gatewayOnQueuedGamma(t);
  upstream.answers.push(
    sseAnswer([chunk({ role: 'assistant', content: '' }, null), chunk({ content: 'Oslo is ' }, null), chunk({ content: 'cold.' }, null), chunk({}, 'stop')]),
  );
  const stream = await h.client(key).chat.completions.create({
    model: 'gamma-5.4',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'Weather in Oslo?' }],
  });
  const chunks = [];
  for await (const c of stream) chunks.push(c);
  const last = chunks.at(-1);
  t.match(last, { id: 'chatcmpl-up', object: 'chat.completion.chunk', created: 7, model: 'gamma-5.4', choices: [] }, 'in the envelope of the stream');
  t.same(last?.usage, { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 }, 'the estimate and the deltas relayed');
  t.match(db.rows(id).at(-1), { prompt_tokens: 4, completion_tokens: 2, usage_estimated: 1 }, 'the counts the ledger bills');

  upstream.answers.push(sseAnswer([chunk({ content: 'Hi' }, 'stop')]));
  const plain = await h.client(key).chat.completions.create({ model: 'gamma-5.4', stream: true, messages: [{ role: 'user', content: 'Hi' }] });
  const plainChunks = [];
  for await (const c of plain) plainChunks.push(c);
  t.notOk(
    plainChunks.some((c) => c.usage),
    'a caller who did not ask gets none',
  );
});

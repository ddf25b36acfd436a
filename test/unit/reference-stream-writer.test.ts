import t from 'tap';
import { shownSeal } from '../helpers/reasoning-seal.js';
import { chatCompletionBody, textCompletionBody } from '../../plugins/ingress-chat/render.js';
import { ReferenceStreamWriter } from '../../plugins/ingress-chat/stream.js';

/** What a reference text chunk is: the object the writer's fast path must serialise to, byte for byte. */
function expectedChunk(text: string, includeUsage: boolean): string {
  const chunk: Record<string, unknown> = {
    id: 'chatcmpl-"quoted"\u2028',
    object: 'chat.completion.chunk',
    created: 1_790_000_000,
    model: 'alpha-sonnet-4.6',
    choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }],
  };
  if (includeUsage) chunk['usage'] = null;
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

/** These writers never show a usage the vendor did not give: the estimate is never asked. */
const noEstimate = (): number => {
  throw new Error('the estimate was asked');
};

t.test('a text delta chunk is the exact JSON of its object, with and without the usage key', async (t) => {
  const envelope = { id: 'chatcmpl-"quoted"\u2028', created: 1_790_000_000, model: 'alpha-sonnet-4.6' };
  for (const includeUsage of [true, false]) {
    const writer = new ReferenceStreamWriter(envelope, false, includeUsage, noEstimate, shownSeal);
    writer.start(0);
    for (const text of ['Hello', ' "quotes" and \\ backslashes', 'line\nbreak\u0000 and é 😀', '</script>']) {
      t.equal(writer.text(0, text), expectedChunk(text, includeUsage), `${JSON.stringify(text)}, usage key ${includeUsage}`);
    }
  }
});

t.test('a text delta with logprobs keeps them (the general path)', async (t) => {
  const writer = new ReferenceStreamWriter({ id: 'c', created: 1, model: 'm' }, false, false, noEstimate, shownSeal);
  writer.start(0);
  const logprobs = { content: [{ token: 'Hi', logprob: -0.1 }] };
  const chunk = JSON.parse(writer.text(0, 'Hi', logprobs).slice('data: '.length)) as { choices: Array<{ logprobs: unknown }> };
  t.same(chunk.choices[0]?.logprobs, logprobs);
});

t.test("the model's refusal: `refusal` deltas; a legacy completion has only text, so there it is text", async (t) => {
  const chat = new ReferenceStreamWriter({ id: 'c', created: 1, model: 'm' }, false, false, noEstimate, shownSeal);
  t.equal(
    chat.refusal(0, ''),
    'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}\n\n',
    'an empty fragment only starts the choice',
  );
  t.equal(
    chat.refusal(0, 'No.'),
    'data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"refusal":"No."},"logprobs":null,"finish_reason":null}]}\n\n',
  );
  const legacy = new ReferenceStreamWriter({ id: 'cmpl', created: 1, model: 'm' }, true, false, noEstimate, shownSeal);
  t.equal(
    legacy.refusal(0, 'No.'),
    'data: {"id":"cmpl","object":"text_completion","created":1,"model":"m","choices":[{"text":"No.","index":0,"logprobs":null,"finish_reason":null}]}\n\n',
  );
  t.same([chat.relayedDeltas, legacy.relayedDeltas], [1, 1], 'a refusal fragment is an output delta');
  const reply = { choices: [{ content: null, refusal: 'No.', toolCalls: [], finish: 'stop' as const }], usage: { promptTokens: 1, completionTokens: 1 } };
  const envelope = { id: 'c', created: 1, model: 'm' };
  t.same((chatCompletionBody(reply, envelope, shownSeal)['choices'] as unknown[])[0], {
    index: 0,
    message: { role: 'assistant', content: null, refusal: 'No.' },
    logprobs: null,
    finish_reason: 'stop',
  });
  t.same((textCompletionBody(reply, envelope)['choices'] as unknown[])[0], { text: 'No.', index: 0, logprobs: null, finish_reason: 'stop' });
});

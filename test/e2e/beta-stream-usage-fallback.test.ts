import type { ServerResponse } from 'node:http';
import t, { type Test } from 'tap';
import { ResponsesStream } from '../../plugins/ingress-responses/stream.js';
import { turnOf } from '../../plugins/ingress-responses/turn.js';
import { startHarness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';
import { sdk } from '../helpers/messages-client.js';
import { queuedUpstream, type Answer } from '../helpers/queued-upstream.js';
import { responsesCall } from '../helpers/responses-call.js';
import { shownSeal } from '../helpers/reasoning-seal.js';

/**
 * A complete beta stream that never sends `usageMetadata`: the ledger bills the gateway's input
 * estimate and the deltas relayed (`usage_estimated`), and the caller is shown those same counts
 * — chat's last usage chunk (not `"usage": null`), the Messages `message_start`/`message_delta`
 * usage, and the Responses terminal event's usage. The beta upstream is a server of the test's
 * own that answers with the queued stream.
 */

type Json = Record<string, any>;

/** "Weather in Oslo?": 16 characters, 4 tokens by the estimate (a token per 4 characters). */
const QUESTION = 'Weather in Oslo?';
const PROMPT = 4;
/** Two text parts: two deltas relayed. */
const COMPLETION = 2;

/** A beta `?alt=sse` body of two text chunks, the last with its finish, and no usageMetadata anywhere. */
const noUsageStream: Answer = (res: ServerResponse) => {
  const chunks = [
    { candidates: [{ content: { role: 'model', parts: [{ text: 'Oslo is ' }] }, index: 0 }] },
    { candidates: [{ content: { role: 'model', parts: [{ text: 'cold.' }] }, finishReason: 'STOP', index: 0 }] },
  ];
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.end(chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join(''));
};

async function gateway(t: Test) {
  const upstream = await queuedUpstream(t);
  const h = await startHarness(t, { env: { BETA_BASE_URL: upstream.origin, GATEWAY_RETRY_MAX: '0' } });
  const { id, key } = await h.createKey();
  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  const lastRow = () => ledger.rows(id).at(-1);
  return { upstream, h, key, lastRow };
}

t.test('chat: the usage chunk shows the estimate the ledger bills, read through the official client', async (t) => {
  const { upstream, h, key, lastRow } = await gateway(t);
  upstream.answers.push(noUsageStream);
  const stream = await h.client(key).chat.completions.create({
    model: 'beta-3-flash',
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: QUESTION }],
  });
  const chunks = [];
  for await (const chunk of stream) chunks.push(chunk);
  const last = chunks.at(-1);
  t.same(last?.choices, [], 'the last chunk is the usage chunk');
  t.same(last?.usage, { prompt_tokens: PROMPT, completion_tokens: COMPLETION, total_tokens: PROMPT + COMPLETION }, 'counts, not null');
  t.match(
    lastRow(),
    { endpoint: 'chat.completions', stream: 1, status: 200, prompt_tokens: PROMPT, completion_tokens: COMPLETION, usage_estimated: 1 },
    'the same counts in the ledger',
  );
});

t.test('Messages: message_start and message_delta show the estimate the ledger bills', async (t) => {
  const { upstream, h, key, lastRow } = await gateway(t);
  upstream.answers.push(noUsageStream);
  const message = await sdk(h, key)
    .messages.stream({ model: 'beta-3-flash', max_tokens: 64, messages: [{ role: 'user', content: QUESTION }] })
    .finalMessage();
  t.match(message.usage, { input_tokens: PROMPT, output_tokens: COMPLETION }, 'the caller sees the estimate and the deltas');
  t.match(
    lastRow(),
    { endpoint: 'messages', stream: 1, status: 200, prompt_tokens: PROMPT, completion_tokens: COMPLETION, usage_estimated: 1 },
    'the same counts in the ledger',
  );
});

t.test('Responses: without a vendor count the terminal event shows the estimate and the relayed deltas', async (t) => {
  const call = responsesCall({ model: 'beta-3-flash', input: QUESTION, stream: true }, 'beta-3-flash');
  let estimates = 0;
  const stream = new ResponsesStream(
    turnOf(call),
    true,
    () => {
      estimates += 1;
      return PROMPT;
    },
    shownSeal,
  );
  stream.text(0, 'Oslo is ');
  stream.text(0, 'cold.');
  stream.finish(0, 'stop');
  t.equal(estimates, 0, 'nothing estimated while the stream runs');
  stream.close(null);
  const completed = JSON.parse(stream.done().split('data: ')[1] ?? '{}') as Json;
  t.same(completed['response'].usage, {
    input_tokens: PROMPT,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: COMPLETION,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: PROMPT + COMPLETION,
  });
  t.equal(estimates, 1, 'estimated once, for the missing count');

  const counted = new ResponsesStream(
    turnOf(responsesCall({ model: 'beta-3-flash', input: QUESTION, stream: true }, 'beta-3-flash')),
    true,
    () => {
      throw new Error('a vendor count needs no estimate');
    },
    shownSeal,
  );
  counted.text(0, 'Hi');
  counted.finish(0, 'stop');
  counted.close({ promptTokens: 9, completionTokens: 1 });
  t.match(
    JSON.parse(counted.done().split('data: ')[1] ?? '{}'),
    { response: { usage: { input_tokens: 9, output_tokens: 1 } } },
    "the vendor's count when it gave one",
  );
});

t.test('Responses end to end: the completed response shows the estimate the ledger bills, read through the official client', async (t) => {
  const { upstream, h, key, lastRow } = await gateway(t);
  upstream.answers.push(noUsageStream);
  const stream = h.client(key).responses.stream({ model: 'beta-3-flash', input: QUESTION });
  const response = await stream.finalResponse();
  t.match(response.usage, { input_tokens: PROMPT, output_tokens: COMPLETION, total_tokens: PROMPT + COMPLETION }, 'counts, not null');
  t.match(
    lastRow(),
    { endpoint: 'responses', stream: 1, status: 200, prompt_tokens: PROMPT, completion_tokens: COMPLETION, usage_estimated: 1 },
    'the same counts in the ledger',
  );
});

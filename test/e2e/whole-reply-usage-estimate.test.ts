import t, { type Test } from 'tap';
import { startHarness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';
import { sdk } from '../helpers/messages-client.js';
import { jsonAnswer, queuedUpstream } from '../helpers/queued-upstream.js';

/**
 * A whole (non-streamed) reply whose vendor gave no token counts is billed by the gateway's
 * estimates — input as `count_tokens` estimates it, output a token per 4 characters written —
 * with the row marked `usage_estimated`, and a translated reply shows the caller those counts;
 * before, such a call was billed $0. Beta's embeddings, which the vendor never counts, bill
 * their input by the estimate too, so they count against the key's upstream limit.
 */

/** 16 characters: 4 input tokens by the estimate. */
const QUESTION = 'Weather in Oslo?';
const PROMPT = 4;
/** 13 characters written: 4 output tokens. */
const ANSWER = 'Oslo is cold.';
const COMPLETION = 4;

const betaReply = { candidates: [{ content: { role: 'model', parts: [{ text: ANSWER }] }, finishReason: 'STOP', index: 0 }] };
const gammaReply = {
  id: 'x',
  object: 'chat.completion',
  created: 1,
  model: 'gamma-5.4',
  choices: [{ index: 0, message: { role: 'assistant', content: ANSWER }, finish_reason: 'stop' }],
};

async function gateway(t: Test, family: 'BETA' | 'GAMMA') {
  const upstream = await queuedUpstream(t);
  const h = await startHarness(t, { env: { [`${family}_BASE_URL`]: upstream.origin, GATEWAY_RETRY_MAX: '0' } });
  const { id, key } = await h.createKey();
  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  return { upstream, h, key, lastRow: () => ledger.rows(id).at(-1) };
}

const estimatedRow = (endpoint: string) => ({ endpoint, stream: 0, status: 200, prompt_tokens: PROMPT, completion_tokens: COMPLETION, usage_estimated: 1 });

t.test('beta without usageMetadata: each format shows and bills the estimate', async (t) => {
  const { upstream, h, key, lastRow } = await gateway(t, 'BETA');
  for (let i = 0; i < 3; i += 1) upstream.answers.push(jsonAnswer(betaReply));

  const chat = await h.client(key).chat.completions.create({ model: 'beta-3-flash', messages: [{ role: 'user', content: QUESTION }] });
  t.same(chat.usage, { prompt_tokens: PROMPT, completion_tokens: COMPLETION, total_tokens: PROMPT + COMPLETION }, 'chat: the estimate, not zeros');
  t.match(lastRow(), estimatedRow('chat.completions'));

  const response = await h.client(key).responses.create({ model: 'beta-3-flash', input: QUESTION });
  t.match(response.usage, { input_tokens: PROMPT, output_tokens: COMPLETION }, 'Responses');
  t.match(lastRow(), estimatedRow('responses'));

  const message = await sdk(h, key).messages.create({ model: 'beta-3-flash', max_tokens: 64, messages: [{ role: 'user', content: QUESTION }] });
  t.match(message.usage, { input_tokens: PROMPT, output_tokens: COMPLETION }, 'Messages');
  t.match(lastRow(), estimatedRow('messages'));
});

t.test('gamma without usage: the relayed chat reply and the translated one are billed by the estimate', async (t) => {
  const { upstream, h, key, lastRow } = await gateway(t, 'GAMMA');
  upstream.answers.push(jsonAnswer(gammaReply), jsonAnswer(gammaReply));
  const chat = await h.client(key).chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: QUESTION }] });
  t.equal(chat.usage, undefined, 'chat is relayed as the vendor sent it');
  t.match(lastRow(), estimatedRow('chat.completions'), 'and billed by the estimate');
  const response = await h.client(key).responses.create({ model: 'gamma-5.4', input: QUESTION });
  t.match(response.usage, { input_tokens: PROMPT, output_tokens: COMPLETION }, 'Responses shows the estimate');
  t.match(lastRow(), estimatedRow('responses'));
});

t.test('beta embeddings bill their input by the estimate and count against the upstream limit', async (t) => {
  const h = await startHarness(t);
  const { id, key } = await h.createKey({ monthly_upstream_limit_usd: '0.000007' });
  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  const input = ['x'.repeat(400), 'y'];
  const first = await h.client(key).embeddings.create({ model: 'beta-3-flash', input });
  t.same(first.usage, { prompt_tokens: 101, total_tokens: 101 }, 'a token per 4 characters of each input, at least 1');
  t.match(ledger.rows(id).at(-1), { endpoint: 'embeddings', prompt_tokens: 101, usage_estimated: 1 });
  t.ok(Number(ledger.rows(id).at(-1)?.list_nano) > 0, 'an upstream cost');
  const again = await fetch(`${h.origin}/v1/embeddings`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'beta-3-flash', input }),
  });
  t.equal(again.status, 402, 'the upstream limit, once spent, refuses the next');
});

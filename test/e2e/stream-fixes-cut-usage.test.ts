import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { openLedgerDb, type LedgerDbRow } from '../helpers/ledger-db.js';
import { gatewayOnQueuedGamma } from '../helpers/queued-upstream.js';

/**
 * A stream cut short before the vendor gave its usage still bills the prompt the vendor read:
 * by the gateway's input estimate (one token per 4 characters, as count_tokens answers), flagged
 * as estimated. Gamma counts only at the end, so a caller who sends a long prompt and leaves
 * after the first token is billed for it; alpha and beta count the input at the start, and their
 * counts stand.
 */

/** Long words: the simulators count words, the estimate characters, so the two differ. */
const PROMPT = 'antidisestablishmentarianism '.repeat(40).trim();
const estimate = (text: string): number => Math.ceil(text.length / 4);
const ask = (text: string) => [{ role: 'user' as const, content: text }];

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _chunk of stream) {
    // read to the end: only how it ends matters
  }
}

t.test('cut by the upstream: gamma bills the estimated prompt; alpha and beta their counts', async (t) => {
  const h = await startHarness(t, { env: { GATEWAY_RETRY_MAX: '0' } });
  const { id, key } = await h.createKey();
  const client = h.client(key);
  const db = openLedgerDb(h.dbPath);
  t.teardown(() => db.close());
  const rowsBefore = (): number => db.rows(id).length;
  const lastRow = (): LedgerDbRow | undefined => db.rows(id).at(-1);

  const cutText = `${PROMPT} [[sim:tokens=20]] [[sim:reset_after=3]]`;
  const cut = await client.chat.completions.create({ model: 'gamma-5.4', stream: true, messages: ask(cutText) });
  await t.rejects(drain(cut), 'gamma: the caller sees the stream fail');
  t.match(
    lastRow(),
    { model: 'gamma-5.4', outcome: 'upstream_error', usage_estimated: 1, prompt_tokens: estimate(cutText) },
    'gamma: the prompt by the estimate, not 0',
  );
  t.ok((lastRow()?.completion_tokens ?? 0) > 0, 'and the relayed deltas');

  const legacyText = `${PROMPT} [[sim:tokens=20]] [[sim:reset_after=2]]`;
  await t.rejects(drain(await client.completions.create({ model: 'gamma-5.4', stream: true, prompt: legacyText })), 'gamma legacy: cut too');
  t.match(lastRow(), { endpoint: 'completions', usage_estimated: 1, prompt_tokens: estimate(legacyText) }, 'gamma legacy: the prompt by the estimate');

  for (const model of ['alpha-haiku-4.5', 'beta-3-flash']) {
    // The same words as the cut call's below (the simulators count words): a cut after more frames than come.
    await drain(await client.chat.completions.create({ model, stream: true, messages: ask(`${PROMPT} [[sim:tokens=20]] [[sim:reset_after=999]]`) }));
    const counted = lastRow()?.prompt_tokens ?? 0;
    t.not(counted, estimate(PROMPT), `${model}: the vendor counts otherwise than the estimate`);
    const before = rowsBefore();
    await t.rejects(drain(await client.chat.completions.create({ model, stream: true, messages: ask(`${PROMPT} [[sim:tokens=20]] [[sim:reset_after=3]]`) })));
    t.equal(rowsBefore(), before + 1);
    // Alpha's output count comes only at the end: the relayed deltas stand in for it, marked estimated.
    const estimated = model.startsWith('alpha') ? 1 : 0;
    t.match(lastRow(), { prompt_tokens: counted, usage_estimated: estimated }, `${model}: a cut stream keeps the vendor's input count`);
  }
});

t.test('gamma, a caller who leaves after the first token: the prompt is billed by the estimate', async (t) => {
  const { upstream, h, id, key, db } = await gatewayOnQueuedGamma(t);
  // The first chunk, then nothing: the stream stays open until the caller leaves.
  upstream.answers.push((res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(
      `data: ${JSON.stringify({ id: 'chatcmpl-u', object: 'chat.completion.chunk', created: 1, model: 'gamma-5.4', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }], usage: null })}\n\n`,
    );
  });
  const body = JSON.stringify({ model: 'gamma-5.4', stream: true, messages: ask(PROMPT) });
  const controller = new AbortController();
  const res = await fetch(`${h.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
    signal: controller.signal,
  });
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  t.match(new TextDecoder().decode((await reader.read()).value), /"content":"Hi"/, 'the first token arrived');
  controller.abort();
  let row: LedgerDbRow | undefined;
  for (let i = 0; i < 100 && !row; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    row = db.rows(id)[0];
  }
  t.match(row, { status: 499, outcome: 'client_disconnected', usage_estimated: 1, prompt_tokens: estimate(PROMPT), completion_tokens: 1 });
  t.ok((row?.list_nano ?? 0) > 1 * 5000, 'the upstream cost counts the prompt, not only the output token');
});

t.test('gamma, a body relayed as it came that the chat format cannot read: the prompt by its size', async (t) => {
  const { upstream, h, id, key, db } = await gatewayOnQueuedGamma(t);
  // One chunk and the end, no finish reason: the stream was cut (a 502 event for the caller).
  upstream.answers.push((res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(
      `data: ${JSON.stringify({ id: 'chatcmpl-u', model: 'gamma-5.4', choices: [{ index: 0, delta: { content: 'Hi' }, finish_reason: null }], usage: null })}\n\n`,
    );
  });
  // An audio part: only the vendor knows it, the gateway relays it.
  const body = JSON.stringify({
    model: 'gamma-5.4',
    stream: true,
    messages: [{ role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'UklGRg'.repeat(200), format: 'wav' } }] }],
  });
  const res = await fetch(`${h.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
  t.match(await res.text(), /before choice 0 finished/);
  t.match(db.rows(id)[0], { outcome: 'upstream_error', usage_estimated: 1, prompt_tokens: Math.ceil(Buffer.byteLength(body) / 4), completion_tokens: 1 });
});

import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';

/**
 * A stream cut while the model is still thinking is billed for the thinking relayed, on every
 * format: thinking is output the vendor bills. Alpha's output count comes only at the end, so
 * the relayed deltas (thinking and text) stand in for it, and the row says `usage_estimated`.
 * The alpha simulator resets the stream after 8 frames: by then 6 thinking deltas went out and
 * no text.
 */

const PROMPT = 'word word [[sim:tokens=30]] [[sim:reset_after=8]]';
const THINKING_DELTAS = 6;

const bodies = {
  chat: {
    path: '/v1/chat/completions',
    body: { model: 'alpha-opus-4.6', stream: true, reasoning_effort: 'high', messages: [{ role: 'user', content: PROMPT }] },
  },
  responses: { path: '/v1/responses', body: { model: 'alpha-opus-4.6', stream: true, reasoning: { effort: 'high' }, input: PROMPT } },
  messages: {
    path: '/v1/messages',
    body: {
      model: 'alpha-opus-4.6',
      stream: true,
      max_tokens: 4096,
      thinking: { type: 'enabled', budget_tokens: 2000 },
      messages: [{ role: 'user', content: PROMPT }],
    },
  },
} as const;

t.test('a stream cut during thinking bills the thinking relayed, marked estimated, on chat, Responses and Messages', async (t) => {
  const h = await startHarness(t, { env: { GATEWAY_RETRY_MAX: '0' } });
  const { id, key } = await h.createKey();
  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  for (const [format, { path, body }] of Object.entries(bodies)) {
    const res = await fetch(`${h.origin}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    t.equal(res.status, 200, `${format}: the stream began`);
    t.notMatch(text, /"(content|text|delta)":"word/, `${format}: no text reached the caller before the cut`);
    const row = ledger.rows(id).at(-1);
    t.match(row, { completion_tokens: THINKING_DELTAS, usage_estimated: 1 }, `${format}: the thinking relayed is billed, as the gateway's estimate`);
    t.ok(Number(row?.charged_nano) > 0, `${format}: charged ${row?.charged_nano} n$`);
  }
});

import t from 'tap';
import { SUMMARY_REQUEST } from '../../plugins/ingress-responses/compact.js';
import { compactProblems, responseProblems } from '../helpers/open-responses.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';

/**
 * POST /v1/responses/compact on every family: the model is asked for a summary of the conversation
 * (a billed upstream call behind every gatekeeper), the answer is the specification's compacted
 * response with one compaction item, sealed by the gateway (opaque, authenticated, bound to the
 * key), and the item sent back in a later input, on any family, reads as the summary.
 */

type Json = Record<string, any>;
const MODELS = ['alpha-sonnet-4.6', 'beta-3-flash', 'gamma-5.4'];
/** The simulators' reply text: what each family's model "summarises" (src/simulators/reply-plan.ts). */
const SUMMARY = 'Hello from the simulated upstream';

async function post(h: Harness, key: string | null, path: string, body: Json): Promise<{ status: number; json: Json }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers['authorization'] = `Bearer ${key}`;
  const res = await fetch(`${h.baseURL}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Json };
}

const upstreamCount = (h: Harness): number => h.alpha.requests.length + h.beta.requests.length + h.gamma.requests.length;
const lastRequest = (h: Harness): string => {
  const all = [...h.alpha.requests, ...h.beta.requests, ...h.gamma.requests].sort((a, b) => a.at - b.at);
  return all.at(-1)?.body ?? '';
};

const CONVERSATION = [
  { type: 'message', role: 'user', content: 'We agreed to launch on Tuesday and notify support first.' },
  { type: 'message', role: 'assistant', content: 'Understood. The launch is Tuesday, with support notified beforehand.' },
];

t.test('every family compacts: the summary asked of the model, the compacted response sealed', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  for (const model of MODELS) {
    const before = upstreamCount(h);
    const compacted = await post(h, key, '/responses/compact', { model, input: CONVERSATION, prompt_cache_key: 'openresponses-compact-test' });
    t.equal(compacted.status, 200, model);
    t.same(compactProblems(compacted.json), [], `${model}: a CompactResource`);
    t.equal(upstreamCount(h), before + 1, 'one upstream call');
    const asked = lastRequest(h);
    t.ok(asked.includes('We agreed to launch on Tuesday') && asked.includes('Understood. The launch is Tuesday'), 'the conversation is sent');
    t.ok(asked.includes(SUMMARY_REQUEST.slice(0, 40)), 'with the request for a summary after it');

    const { output } = compacted.json;
    t.match(compacted.json, { object: 'response.compaction', id: /^resp_/, usage: { input_tokens: Number, output_tokens: Number } });
    t.same(
      output.slice(0, -1).map((item: Json) => [item['type'], item['role'], item['content']]),
      [['message', 'user', [{ type: 'input_text', text: 'We agreed to launch on Tuesday and notify support first.' }]]],
      "the conversation's user messages, then",
    );
    const item = output.at(-1) as Json;
    t.match(item, { type: 'compaction', id: /^cmp_/, encrypted_content: /^gwc1\./ }, 'one compaction item');
    const sealed = item['encrypted_content'] as string;
    t.notOk(sealed.includes(SUMMARY), 'opaque: the summary is not in it');
    t.notOk(Buffer.from(sealed.slice(5), 'base64url').toString('latin1').includes(SUMMARY), 'nor in its bytes');
  }
  const official = await h.client(key).responses.compact({ model: 'gamma-5.4', input: 'Remember the code word: slate.' });
  t.equal(official.object, 'response.compaction', "the official client's compact");
});

t.test('the compaction item expands to its summary on every family, and comes back stored still sealed', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  for (const [i, from] of MODELS.entries()) {
    const to = MODELS[(i + 1) % MODELS.length] as string;
    const { json: compacted } = await post(h, key, '/responses/compact', { model: from, input: CONVERSATION });
    const input = [...compacted['output'], { type: 'message', role: 'user', content: 'Continue from here. Reply with exactly: compacted' }];
    const before = upstreamCount(h);
    const answered = await post(h, key, '/responses', { model: to, input, tools: [] });
    t.equal(answered.status, 200, `compacted on ${from}, continued on ${to}`);
    t.same(responseProblems(answered.json), []);
    t.equal(upstreamCount(h), before + 1);
    const sent = lastRequest(h);
    t.ok(sent.includes('Summary of the earlier conversation, which was compacted:') && sent.includes(SUMMARY), `${to} reads the summary`);
    t.notOk(sent.includes('gwc1.'), 'never the sealed item');

    const listed = await fetch(`${h.baseURL}/responses/${answered.json['id']}/input_items?order=asc`, { headers: { authorization: `Bearer ${key}` } });
    const items = ((await listed.json()) as Json)['data'] as Json[];
    t.same(
      items.filter((item) => item['type'] === 'compaction').map((item) => item['encrypted_content']),
      [compacted['output'].at(-1).encrypted_content],
      'stored as it came: listing the input shows the sealed item, not the summary',
    );

    const continued = await post(h, key, '/responses', { model: from, previous_response_id: answered.json['id'], input: 'And then?' });
    t.equal(continued.status, 200);
    t.ok(lastRequest(h).includes('Summary of the earlier conversation'), 'a stored conversation holding one expands it too');
  }
});

t.test('an item the gateway did not seal for this key is refused by name, with no upstream call', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const { key: other } = await h.createKey();
  const { json: compacted } = await post(h, key, '/responses/compact', { model: 'gamma-5.4', input: CONVERSATION });
  const item = compacted['output'].at(-1) as Json;
  const sealed = item['encrypted_content'] as string;
  const flipped = sealed.slice(0, 20) + (sealed[20] === 'A' ? 'B' : 'A') + sealed.slice(21);
  const before = upstreamCount(h);
  for (const [name, content, caller] of [
    ['altered', flipped, key],
    ['cut short', sealed.slice(0, 12), key],
    ["another service's (OpenAI's)", 'gAAAAABpZ0x1c29tZXRoaW5nIGVsc2U', key],
    ["another key's", sealed, other],
  ] as const) {
    const refused = await post(h, caller, '/responses', {
      model: 'beta-3-flash',
      input: [
        { type: 'compaction', encrypted_content: content },
        { role: 'user', content: 'Go on' },
      ],
    });
    t.equal(refused.status, 400, name);
    t.equal(refused.json['error'].param, 'input[0].encrypted_content', `${name}: naming the item`);
  }
  const schema = await post(h, key, '/responses', { model: 'beta-3-flash', input: [{ type: 'compaction' }] });
  t.same([schema.status, schema.json['error'].param], [400, 'input[0].encrypted_content'], 'its content is required');
  t.equal(upstreamCount(h), before, 'no upstream call');
});

t.test('the compact body: model required, its own parameters, a stored conversation', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const missing = await post(h, key, '/responses/compact', { input: [{ type: 'message', role: 'user', content: 'Compact this conversation.' }] });
  t.same([missing.status, missing.json['error'].param], [400, 'model'], 'compact-missing-model');
  const streamed = await post(h, key, '/responses/compact', { model: 'gamma-5.4', input: 'Hi', stream: true });
  t.same([streamed.status, streamed.json['error'].param], [400, 'stream'], 'a parameter the endpoint does not take');
  const badItem = await post(h, key, '/responses/compact', { model: 'gamma-5.4', input: [{ role: 'user' }] });
  t.same([badItem.status, badItem.json['error'].param], [400, 'input[0].content'], 'items are checked as for /v1/responses');

  const first = await h.client(key).responses.create({ model: 'alpha-sonnet-4.6', input: 'My name is Ada.' });
  const compacted = await post(h, key, '/responses/compact', { model: 'alpha-sonnet-4.6', previous_response_id: first.id, input: 'And I live in Paris.' });
  t.equal(compacted.status, 200);
  const sent = lastRequest(h);
  t.ok(sent.includes('My name is Ada.') && sent.includes('And I live in Paris.'), 'the stored conversation, then the input');
  t.same(
    compacted.json['output'].slice(0, -1).map((item: Json) => item['content'][0].text),
    ['My name is Ada.', 'And I live in Paris.'],
    'every user message of the conversation is kept',
  );
  const gone = await post(h, key, '/responses/compact', { model: 'alpha-sonnet-4.6', previous_response_id: 'resp_nope', input: 'Hi' });
  t.equal(gone.json['error'].code, 'previous_response_not_found');
});

t.test('compaction is an ordinary call: gatekeepers, retries, a billed ledger row, metrics', async (t) => {
  const h = await startHarness(t);
  const { key, id } = await h.createKey();
  t.equal((await post(h, null, '/responses/compact', { model: 'gamma-5.4', input: 'Hi' })).status, 401, 'no key');
  t.equal((await post(h, key, '/responses/compact', { model: 'nope-1', input: 'Hi' })).status, 404, 'an unknown model');
  const { key: gammaOnly } = await h.createKey({ models: ['gamma-5.4'] });
  t.equal((await post(h, gammaOnly, '/responses/compact', { model: 'alpha-sonnet-4.6', input: 'Hi' })).status, 403, 'the allowlist');
  const { key: capped } = await h.createKey({ monthly_ceiling_usd: '0.00001' });
  const over = await post(h, capped, '/responses/compact', { model: 'gamma-5.4', input: 'Hi' });
  t.same([over.status, over.json['error'].code], [402, 'monthly_cap_exceeded'], "the ceiling reserves the summary's limit");
  const { key: slow } = await h.createKey({ rpm_limit: 1 });
  t.equal((await post(h, slow, '/responses/compact', { model: 'beta-3-flash', input: 'Hi' })).status, 200);
  t.equal((await post(h, slow, '/responses/compact', { model: 'beta-3-flash', input: 'Hi' })).status, 429, 'the rate cap');

  const before = h.gamma.requests.length;
  const retried = await post(h, key, '/responses/compact', { model: 'gamma-5.4', input: 'Please [[sim:status=503]]' });
  t.equal(h.gamma.requests.length - before, 3, 'a failing upstream is retried (GATEWAY_RETRY_MAX 2)');
  t.equal(retried.status, 503);
  t.equal((await post(h, key, '/responses/compact', { model: 'gamma-5.4', input: CONVERSATION })).status, 200);

  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  const rows = ledger.rows(id).filter((row) => row.endpoint === 'responses.compact');
  t.same(
    rows.map((row) => [row.model, row.outcome]),
    [
      ['gamma-5.4', 'upstream_error'],
      ['gamma-5.4', 'ok'],
    ],
  );
  t.ok((rows[1]?.charged_nano ?? 0) > 0 && (rows[1]?.completion_tokens ?? 0) > 0, 'billed like any call');
  const metrics = await (await fetch(`${h.origin}/metrics`)).text();
  t.match(metrics, /gateway_requests_total\{[^}]*endpoint="responses\.compact"/, 'the metrics label');
});

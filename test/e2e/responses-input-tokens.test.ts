import t from 'tap';
import { startHarness, type Harness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';

/**
 * POST /v1/responses/input_tokens: a Responses request body's input tokens on every family — alpha
 * and beta by their vendor's count, gamma by the gateway's estimate — behind the same gatekeepers
 * (401, 403, 404, 429), continuing a stored conversation, and accounted as a count (no cost).
 */

type Json = Record<string, any>;

async function count(h: Harness, key: string | null, body: Json): Promise<{ status: number; json: Json; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers['authorization'] = `Bearer ${key}`;
  const res = await fetch(`${h.baseURL}/responses/input_tokens`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as Json, headers: res.headers };
}

const BODY = {
  instructions: 'Be brief.',
  input: [
    { role: 'user', content: 'What is the weather in Paris, and in Rome, this week?' },
    { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
    { type: 'function_call_output', call_id: 'c1', output: 'Sunny' },
  ],
  tools: [{ type: 'function', name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
};

t.test('every family counts, in the input_tokens object, the vendor asked where it counts', async (t) => {
  const h = await startHarness(t);
  const { key, id } = await h.createKey();
  for (const model of ['alpha-sonnet-4.6', 'beta-3-flash', 'gamma-5.4']) {
    const sent = { alpha: h.alpha.requests.length, beta: h.beta.requests.length, gamma: h.gamma.requests.length };
    const counted = await count(h, key, { model, ...BODY, stream: true, max_output_tokens: 50 });
    t.equal(counted.status, 200, model);
    t.same(Object.keys(counted.json), ['object', 'input_tokens'], model);
    t.equal(counted.json['object'], 'response.input_tokens');
    t.ok(Number.isInteger(counted.json['input_tokens']) && counted.json['input_tokens'] > 0, `${model}: a count`);
    const reply = (await h.client(key).responses.create({ model, ...(BODY as any) })).usage as Json;
    if (model === 'gamma-5.4') {
      t.same([h.gamma.requests.length - sent.gamma], [1], 'gamma: the estimate, no upstream count (the reply made the one request)');
    } else {
      t.equal(counted.json['input_tokens'], reply['input_tokens'], `${model}: the vendor's count of the same input`);
    }
  }
  const alphaCount = h.alpha.requests.find((r) => r.path.startsWith('/v1/messages/count_tokens'));
  t.ok(alphaCount, 'alpha: its count_tokens endpoint');
  const asked = JSON.parse(alphaCount?.body ?? '{}') as Json;
  t.notOk('max_tokens' in asked || 'stream' in asked, 'without what shapes only the output');
  t.match(asked, { system: [{ type: 'text', text: 'Be brief.' }], tools: [{ name: 'weather' }] }, 'the translated request');
  t.ok(
    h.beta.requests.some((r) => r.path.includes(':countTokens')),
    'beta: its countTokens endpoint',
  );

  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  const counts = ledger.rows(id).filter((row) => row.endpoint === 'responses.input_tokens');
  t.same(
    counts.map((row) => [row.model, row.outcome, row.charged_nano]),
    [
      ['alpha-sonnet-4.6', 'ok', 0],
      ['beta-3-flash', 'ok', 0],
    ],
    'a count that reached an upstream has its ledger row, at no cost (gamma made no upstream call)',
  );
});

t.test('the official client, and a stored conversation counted with it', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const client = h.client(key);
  const alone = await client.responses.inputTokens.count({ model: 'beta-3-flash', input: 'And what about tomorrow?' });
  t.equal(alone.object, 'response.input_tokens');
  const first = await client.responses.create({ model: 'beta-3-flash', input: 'My name is Ada and I like long walks by the sea.' });
  const continued = await client.responses.inputTokens.count({ model: 'beta-3-flash', previous_response_id: first.id, input: 'And what about tomorrow?' });
  t.ok(continued.input_tokens > alone.input_tokens, 'previous_response_id: the stored conversation counts too');
  const missing = await count(h, key, { model: 'beta-3-flash', previous_response_id: 'resp_nope', input: 'Hi' });
  t.equal(missing.status, 400);
  t.equal(missing.json['error'].code, 'previous_response_not_found');
});

t.test('the gatekeepers of every call, in the Responses envelope', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  t.equal((await count(h, null, { model: 'gamma-5.4', input: 'Hi' })).status, 401, 'no key');
  const noModel = await count(h, key, { input: 'Hi' });
  t.same([noModel.status, noModel.json['error'].param], [400, 'model'], 'the model names the family that counts: required');
  t.equal((await count(h, key, { model: 'nope-1', input: 'Hi' })).status, 404, 'an unknown model');
  const { key: gammaOnly } = await h.createKey({ models: ['gamma-5.4'] });
  const refused = await count(h, gammaOnly, { model: 'alpha-sonnet-4.6', input: 'Hi' });
  t.same([refused.status, refused.json['error'].code], [403, 'model_not_allowed']);
  // 10 000 nano-dollars: 4 output tokens of gamma-5.4 ($2.50 per 1M), spent by one call.
  const { key: capped } = await h.createKey({ monthly_ceiling_usd: '0.00001' });
  t.equal((await count(h, capped, { model: 'alpha-sonnet-4.6', input: 'Hi' })).status, 200, 'a count reserves nothing: it fits any ceiling');
  t.equal((await h.client(capped).responses.create({ model: 'gamma-5.4', input: 'Hi', max_output_tokens: 4 })).status, 'incomplete');
  const spent = await count(h, capped, { model: 'alpha-sonnet-4.6', input: 'Hi' });
  t.same([spent.status, spent.json['error'].code], [402, 'monthly_cap_exceeded'], 'but a key whose ceiling is spent is refused');
  const { key: slow } = await h.createKey({ rpm_limit: 1 });
  t.equal((await count(h, slow, { model: 'alpha-sonnet-4.6', input: 'Hi' })).status, 200);
  t.equal((await count(h, slow, { model: 'alpha-sonnet-4.6', input: 'Hi' })).status, 429, 'the rate cap counts counts');
  const bad = await count(h, key, { model: 'gamma-5.4', input: [{ role: 'user' }] });
  t.same([bad.status, bad.json['error'].param], [400, 'input[0].content'], "the body's checks are the Responses API's");
});

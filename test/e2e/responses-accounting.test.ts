import t from 'tap';
import type { StatusReport } from '../../plugins/status/report.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';

/**
 * /v1/responses behind the same gatekeepers as chat — 401, 403, 402, 429, each in the gateway's
 * envelope — and accounted the same way: ledger rows naming the endpoint `responses` with the
 * exact cost, /v1/usage, the metrics label and the status page.
 */

type Json = Record<string, any>;

async function post(h: Harness, key: string | null, body: Json): Promise<{ status: number; headers: Headers; text: string; json: () => Json }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers['authorization'] = `Bearer ${key}`;
  const res = await fetch(`${h.baseURL}/responses`, { method: 'POST', headers, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) as Json };
}

const hello = (model: string, extra: Json = {}): Json => ({ model, input: 'Say hi [[sim:tokens=5]]', ...extra });

t.test('refusals in the envelope, before any upstream', async (t) => {
  const h = await startHarness(t);
  const upstream = (): number => h.alpha.requests.length + h.beta.requests.length + h.gamma.requests.length;
  const before = upstream();

  const none = await post(h, null, hello('gamma-5.4'));
  t.equal(none.status, 401);
  t.same(none.json(), { error: { message: 'No API key: send Authorization: Bearer sl-….', type: 'invalid_api_key', code: 'invalid_api_key', param: null } });
  const bad = await post(h, `sl-${'x'.repeat(32)}`, hello('gamma-5.4'));
  t.same([bad.status, bad.json()['error']], [401, { message: 'Invalid API key.', type: 'invalid_api_key', code: 'invalid_api_key', param: null }]);

  const { key: gammaOnly } = await h.createKey({ models: ['gamma-5.4'] });
  const outside = await post(h, gammaOnly, hello('alpha-sonnet-4.6'));
  t.equal(outside.status, 403);
  t.match(outside.json(), { error: { type: 'model_not_allowed', code: 'model_not_allowed', param: 'model' } });

  // 10 000 nano-dollars: 4 output tokens of gamma-5.4 ($2.50 per 1M).
  const { key: capped } = await h.createKey({ monthly_ceiling_usd: '0.00001' });
  const unbounded = await post(h, capped, hello('gamma-5.4'));
  t.equal(unbounded.status, 402, 'without max_output_tokens the model maximum is reserved, and does not fit');
  t.match(unbounded.json(), { error: { type: 'quota_exceeded', code: 'monthly_cap_exceeded' } });
  const upstreamBefore = upstream();
  t.equal((await post(h, capped, hello('gamma-5.4', { max_output_tokens: 4 }))).status, 200, 'max_output_tokens bounds the reservation');
  t.equal(upstream(), upstreamBefore + 1);
  t.equal((await post(h, capped, hello('gamma-5.4', { max_output_tokens: 4 }))).status, 402, 'spent');

  const { key: slow } = await h.createKey({ rpm_limit: 1 });
  t.equal((await post(h, slow, hello('beta-3-flash'))).status, 200);
  const limited = await post(h, slow, hello('beta-3-flash'));
  t.equal(limited.status, 429);
  t.match(limited.json(), { error: { type: 'rate_limited', code: 'rate_limit_exceeded', param: null } });
  t.match(limited.headers.get('retry-after'), /^\d+$/);
  t.equal(upstream(), before + 2, 'only the two admitted calls reached an upstream');
});

t.test('ledger rows, /v1/usage, metrics and the status page name the endpoint', async (t) => {
  const h = await startHarness(t);
  const { id, key } = await h.createKey();
  t.equal((await post(h, key, hello('alpha-sonnet-4.6'))).status, 200);
  t.equal((await post(h, key, hello('beta-3-flash', { stream: true, input: 'go [[sim:tokens=4]]' }))).status, 200);
  t.equal((await post(h, key, hello('gamma-5.4', { input: 'go [[sim:tokens=3]]', store: false }))).status, 200);
  t.equal((await post(h, key, hello('gamma-5.4', { input: 'cut [[sim:reset_after=2]]', stream: true }))).status, 200, 'a stream that breaks after its 200');

  const db = openLedgerDb(h.dbPath);
  t.teardown(() => db.close());
  const rows = db.rows(id).map((r) => ({
    endpoint: r.endpoint,
    model: r.model,
    stream: r.stream,
    outcome: r.outcome,
    status: r.status,
    prompt_tokens: r.prompt_tokens,
    completion_tokens: r.completion_tokens,
    charged_nano: r.charged_nano,
    list_nano: r.list_nano,
  }));
  t.same(rows.slice(0, 3), [
    // $1.50 per 1M output tokens charged, $3.00 list, $0.60 input list: 1 500, 3 000 and 600 nano-dollars a token.
    {
      endpoint: 'responses',
      model: 'alpha-sonnet-4.6',
      stream: 0,
      outcome: 'ok',
      status: 200,
      prompt_tokens: 3,
      completion_tokens: 5,
      charged_nano: 7_500,
      list_nano: 16_800,
    },
    // $0.038, $0.075 and $0.013 per 1M: 38, 75 and 13 nano-dollars a token (4 × 75 + 2 × 13).
    {
      endpoint: 'responses',
      model: 'beta-3-flash',
      stream: 1,
      outcome: 'ok',
      status: 200,
      prompt_tokens: 2,
      completion_tokens: 4,
      charged_nano: 152,
      list_nano: 326,
    },
    // 3 × 5000 + 2 × 625.
    {
      endpoint: 'responses',
      model: 'gamma-5.4',
      stream: 0,
      outcome: 'ok',
      status: 200,
      prompt_tokens: 2,
      completion_tokens: 3,
      charged_nano: 7_500,
      list_nano: 16_250,
    },
  ]);
  t.match(rows[3], { endpoint: 'responses', model: 'gamma-5.4', stream: 1, outcome: 'upstream_error', status: 200 }, 'the broken stream is on the ledger too');

  const chat = await fetch(`${h.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'hi [[sim:tokens=2]]' }] }),
  });
  t.equal(chat.status, 200);
  const usage = (await (await fetch(`${h.baseURL}/usage`, { headers: { authorization: `Bearer ${key}` } })).json()) as Json;
  t.equal(usage['totals'].requests, 5);
  t.same(
    (usage['by_endpoint'] as Json[]).map((e) => [e['endpoint'], e['requests']]),
    [
      ['chat.completions', 1],
      ['responses', 4],
    ],
    '/v1/usage totals each endpoint',
  );
  t.equal(usage['data'].length, 3, 'its daily rows stay one per day and model');
  t.equal(usage['totals'].completion_tokens, 14 + (rows[3]?.completion_tokens ?? 0));

  const metrics = await (await fetch(`${h.origin}/metrics`)).text();
  for (const [model, family, status] of [
    ['alpha-sonnet-4.6', 'alpha', '2xx'],
    ['beta-3-flash', 'beta', '2xx'],
    ['gamma-5.4', 'gamma', '2xx'],
  ]) {
    t.match(
      metrics,
      new RegExp(`gateway_requests_total\\{model="${model}",family="${family}",endpoint="responses",status_class="${status}"\\} [1-9]`),
      `${model} counted under responses`,
    );
  }

  const status = (await (await fetch(`${h.origin}/status.json`)).json()) as StatusReport;
  const counted = Object.fromEntries(status.models.map((m) => [m.id, m.requests_24h]));
  t.same([counted['alpha-sonnet-4.6'], counted['beta-3-flash'], counted['gamma-5.4']], [1, 1, 3], 'the status page counts them per model');
  const byEndpoint = Object.fromEntries(status.models.map((m) => [m.id, m.requests_24h_by_endpoint]));
  t.same(
    [byEndpoint['alpha-sonnet-4.6'], byEndpoint['beta-3-flash'], byEndpoint['gamma-5.4']],
    [{ responses: 1 }, { responses: 1 }, { 'chat.completions': 1, responses: 2 }],
    'and per endpoint',
  );
});

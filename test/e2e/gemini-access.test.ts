import { ApiError, GoogleGenAI } from '@google/genai';
import t from 'tap';
import { raw, rawHttp, startHarness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';

/** Keys, refusals, ledger rows and metrics on the Gemini endpoints (docs/formats/gemini.md#access). */

const json = { 'content-type': 'application/json' };
const GENERATE = '/v1beta/models/gamma-5.4:generateContent';
const body = (extra: Record<string, unknown> = {}): string => JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }], ...extra });

/** A POST whose headers may repeat (fetch joins them), answered as status and parsed JSON. */
async function post(origin: string, path: string, headers: Record<string, string | string[]>, text: string): Promise<{ status: number; json: any }> {
  const res = await rawHttp(origin, 'POST', path, { headers, body: text });
  return { status: res.status, json: res.json() };
}

t.test('the key as x-goog-api-key, ?key= or a Bearer token; several only when they agree; 401 in Google shape; the key in no log line', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const other = (await h.createKey()).key;
  const expect = async (headers: Record<string, string | string[]>, status: number, message: RegExp | null, what: string, path = GENERATE) => {
    const res = await post(h.origin, path, { ...json, ...headers }, body());
    t.equal(res.status, status, what);
    if (message) t.match(res.json, { error: { code: 401, status: 'UNAUTHENTICATED', message, details: [{ reason: 'invalid_api_key' }] } }, `${what}: body`);
  };
  await expect({ 'x-goog-api-key': key }, 200, null, 'x-goog-api-key');
  await expect({}, 200, null, '?key=', `${GENERATE}?key=${key}`);
  await expect({ authorization: `Bearer ${key}` }, 200, null, 'Bearer');
  await expect({ 'x-goog-api-key': key, authorization: `Bearer ${key}` }, 200, null, 'header and Bearer, the same key');
  await expect({ 'x-goog-api-key': '' }, 200, null, "an empty x-goog-api-key (Gemini CLI's gateway auth) beside ?key=", `${GENERATE}?key=${key}`);
  await expect({}, 401, /^No API key: send x-goog-api-key: sl-…, \?key=sl-… or Authorization: Bearer sl-…\.$/, 'no key');
  await expect({ 'x-goog-api-key': `sl-${'A'.repeat(32)}` }, 401, /^Invalid API key\.$/, 'an unknown key');
  await expect({ 'x-goog-api-key': key, authorization: `Bearer ${other}` }, 401, /carry different keys/, 'header and Bearer, different keys');
  await expect({ 'x-goog-api-key': key }, 401, /carry different keys/, 'header and query, different keys', `${GENERATE}?key=${other}`);
  await expect(
    { authorization: `Bearer ${key}` },
    401,
    /^The Authorization header and the key query parameter carry different keys/,
    'Bearer and query, different keys',
    `${GENERATE}?key=${other}`,
  );
  await expect({}, 401, /^Send exactly one key query parameter\.$/, 'the query parameter twice', `${GENERATE}?key=${key}&key=${key}`);
  await expect({ 'x-goog-api-key': [key, key] }, 401, /^Send exactly one x-goog-api-key header\.$/, 'x-goog-api-key twice');
  await expect({ 'x-api-key': key }, 401, /x-api-key header is not accepted; send the key as x-goog-api-key/, "another format's header");
  const chat = await raw(h.origin, 'POST', '/v1/chat/completions', {
    headers: { ...json, 'x-goog-api-key': key },
    body: JSON.stringify({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'Hi' }] }),
  });
  t.match(
    [chat.status, chat.json().error.message],
    [401, /x-goog-api-key header is not accepted/],
    'x-goog-api-key stays refused where the format does not take it',
  );
  const sdkError = await new GoogleGenAI({ apiKey: `sl-${'B'.repeat(32)}`, httpOptions: { baseUrl: h.origin } }).models
    .generateContent({ model: 'beta-3-flash', contents: 'Hi' })
    .catch((e: unknown) => e);
  t.match(sdkError, { status: 401 }, 'the SDK raises the 401');
  t.type(sdkError, ApiError);
  t.notOk(
    h.logs.some((line) => line.includes(key) || line.includes(other)),
    'no key in any log line, ?key= included',
  );
  t.ok(
    h.logs.some((line) => line.includes('"path":"/v1beta/models/gamma-5.4:generateContent"')),
    'the request log names the path without its query',
  );
});

t.test("403, 402, 429, 404 and 400 in Google's error shape, with our statuses", async (t) => {
  const h = await startHarness(t);
  const expect = async (key: string, path: string, text: string, status: number, error: Record<string, unknown>, what: string) => {
    const res = await post(h.origin, path, { ...json, 'x-goog-api-key': key }, text);
    t.equal(res.status, status, what);
    t.match(res.json, { error: { code: status, message: String, ...error } }, `${what}: body`);
    return res;
  };
  const scoped = (await h.createKey({ models: ['gamma-5.2'] })).key;
  await expect(scoped, '/v1beta/models/alpha-sonnet-4.6:generateContent', body(), 403, { status: 'PERMISSION_DENIED' }, 'a model outside the allowlist');
  const capped = (await h.createKey({ monthly_ceiling_usd: '0.00001' })).key;
  await expect(
    capped,
    '/v1beta/models/alpha-sonnet-4.6:generateContent',
    body({ generationConfig: { maxOutputTokens: 64000 } }),
    402,
    { status: 'RESOURCE_EXHAUSTED', details: [{ reason: 'monthly_cap_exceeded' }] },
    'the spend ceiling',
  );
  const limited = (await h.createKey({ rpm_limit: 1 })).key;
  t.equal((await post(h.origin, GENERATE, { ...json, 'x-goog-api-key': limited }, body())).status, 200, 'the first call of the minute');
  const second = await raw(h.origin, 'POST', GENERATE, { headers: { ...json, 'x-goog-api-key': limited }, body: body() });
  const wait = Number(second.headers.get('retry-after'));
  t.match(
    [second.status, second.json().error],
    [
      429,
      {
        code: 429,
        status: 'RESOURCE_EXHAUSTED',
        details: [{ reason: 'rate_limit_exceeded' }, { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${wait}s` }],
      },
    ],
    "the rate cap, its wait as RetryInfo (Gemini CLI's retry delay)",
  );
  const free = (await h.createKey()).key;
  await expect(
    free,
    '/v1beta/models/alpha-opus-9:generateContent',
    body(),
    404,
    { status: 'NOT_FOUND', details: [{ metadata: { param: 'model' } }] },
    'an unknown model',
  );
  await expect(
    free,
    GENERATE,
    body({ contents: [{ role: 'user', parts: [{ functionCall: { args: {} } }] }] }),
    400,
    { status: 'INVALID_ARGUMENT', details: [{ metadata: { param: 'contents[0].parts[0].functionCall.name' } }] },
    'the schema, naming the field',
  );
  await expect(free, '/v1beta/models/gamma-5.4:streamGenerateContent', body(), 400, { details: [{ metadata: { param: 'alt' } }] }, 'a stream without alt=sse');
  await expect(
    free,
    GENERATE,
    body({ contents: [{ role: 'user', parts: [{ text: 'x', videoMetadata: {} }] }] }),
    400,
    { details: [{ metadata: { param: 'contents[0].parts[0].videoMetadata' } }] },
    'a member the reader does not read',
  );
  await expect(
    free,
    '/v1beta/models/beta-3-flash:generateContent',
    body({ contents: [{ role: 'user', parts: [{ text: 'x [[sim:status=429]]' }] }] }),
    429,
    { status: 'RESOURCE_EXHAUSTED' },
    "the vendor's own 429",
  );
  const get = await raw(h.origin, 'GET', GENERATE);
  t.equal(get.status, 405, 'another method on a call path: 405');
});

t.test('a ledger row per call with the endpoint names, a count billed nothing, and the metrics label', async (t) => {
  const h = await startHarness(t);
  const { key, id } = await h.createKey();
  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: h.origin } });
  await ai.models.generateContent({ model: 'beta-3-flash', contents: 'Hello there' });
  for await (const _chunk of await ai.models.generateContentStream({ model: 'beta-3-flash', contents: 'Hello there' }));
  await ai.models.countTokens({ model: 'beta-3-flash', contents: 'Hello there' });
  const rows = ledger.rows(id);
  t.same(
    rows.map((row) => [row.endpoint, row.stream]),
    [
      ['gemini.generate_content', 0],
      ['gemini.stream_generate_content', 1],
      ['gemini.count_tokens', 0],
    ],
    'one row a call',
  );
  t.match(rows[0], { model: 'beta-3-flash', family: 'beta', status: 200, outcome: 'ok', completion_tokens: 12, usage_estimated: 0 });
  t.match(rows[1], { status: 200, outcome: 'ok', completion_tokens: 12, usage_estimated: 0 });
  t.match(rows[2], { prompt_tokens: 0, completion_tokens: 0, charged_nano: 0 }, 'a count bills nothing');
  const metrics = await (await fetch(`${h.origin}/metrics`)).text();
  t.match(metrics, /gateway_requests_total\{[^}]*endpoint="gemini\.stream_generate_content"[^}]*\} 1/, 'the endpoint label');
});

t.test('the model list and one model in the Gemini shape', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: h.origin } });
  const listed: string[] = [];
  for await (const model of await ai.models.list({ config: { pageSize: 5 } })) listed.push(model.name ?? '');
  t.same(
    listed,
    h.catalogue.models.map((model) => `models/${model.id}`),
    'every catalogue model, over pages',
  );
  const one = await ai.models.get({ model: 'beta-3-flash' });
  t.match(
    one,
    { name: 'models/beta-3-flash', outputTokenLimit: Number, supportedActions: ['generateContent', 'streamGenerateContent', 'countTokens'] },
    'one model',
  );
  t.match(await ai.models.get({ model: 'models/gamma-5.4' }), { name: 'models/gamma-5.4' }, 'the models/ prefix');
  const missing = await raw(h.origin, 'GET', '/v1beta/models/alpha-opus-9');
  t.match([missing.status, missing.json()], [404, { error: { code: 404, status: 'NOT_FOUND' } }], 'an unknown model');
  const badPage = await raw(h.origin, 'GET', '/v1beta/models?pageToken=nope');
  t.match([badPage.status, badPage.json()], [400, { error: { status: 'INVALID_ARGUMENT' } }], 'a page token the list never gave');
});

t.test("an output limit above the model's is clamped where it stands, camelCase or snake_case", async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const max = h.catalogue.resolve('beta-3-flash')?.maxOutputTokens;
  for (const body of [
    { contents: [{ parts: [{ text: 'Hi' }] }], generationConfig: { maxOutputTokens: 10_000_000, temperature: 0.5 } },
    { contents: [{ parts: [{ text: 'Hi' }] }], generation_config: { max_output_tokens: 10_000_000, temperature: 0.5 } },
  ]) {
    const res = await raw(h.origin, 'POST', '/v1beta/models/beta-3-flash:generateContent', {
      headers: { ...json, 'x-goog-api-key': key },
      body: JSON.stringify(body),
    });
    t.same([res.status, res.headers.get('x-gateway-adjusted')], [200, `generationConfig.maxOutputTokens=clamped:${max}`], 'announced');
    const sent = JSON.parse(h.beta.requests.at(-1)?.body ?? '{}') as { generationConfig: Record<string, unknown> };
    t.match(sent.generationConfig, { maxOutputTokens: max, temperature: 0.5 }, 'the clamped limit reaches the vendor, the rest of the config kept');
  }
});

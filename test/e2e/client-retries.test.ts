import OpenAI from 'openai';
import t from 'tap';
import { chatBody, raw, startHarness } from '../helpers/harness.js';
import { pluginConfig, SHORT_CADENCE } from '../helpers/ops.js';

/**
 * Retries do not multiply: when the gateway already retried, its answer says
 * `x-should-retry: false`, which the official clients honour — the upstream sees the gateway's
 * attempts only, not those times the client's.
 */

t.test("a persistent 503 through the official client with its default retries: the gateway's attempts only", async (t) => {
  const h = await startHarness(t, { env: { GATEWAY_RETRY_MAX: '2' }, configure: pluginConfig('retry', { cadence: SHORT_CADENCE }) });
  const { key } = await h.createKey();
  for (let i = 0; i < 20; i++) h.gamma.faults.push({ status: 503 });
  const client = new OpenAI({ apiKey: key, baseURL: h.baseURL, timeout: 20_000 }); // default maxRetries: 2
  const error = await client.chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
  t.equal((error as InstanceType<typeof OpenAI.APIError>).status, 503);
  t.equal((error as InstanceType<typeof OpenAI.APIError>).headers?.get('x-should-retry'), 'false');
  t.equal(h.gamma.requests.length, 3, "one attempt and the gateway's two retries — the client did not retry on top (it would have made 9)");
});

t.test("no header when the gateway did not retry (the client's own retry is then welcome)", async (t) => {
  const h = await startHarness(t, { env: { GATEWAY_RETRY_MAX: '0' } });
  const { key } = await h.createKey();
  h.gamma.faults.push({ status: 503 });
  const once = await raw(h.origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody(),
  });
  t.equal(once.status, 503);
  t.equal(once.headers.get('x-should-retry'), null);
});

t.test('deeply nested JSON is a 400 naming the problem, never a 500', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const deep = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
  const cases: Record<string, string> = {
    tools: `{"model":"gamma-5.4","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":${deep(5000)}}}]}`,
    json_schema: `{"model":"alpha-sonnet-4.6","messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":${deep(5000)}}}}`,
    embeddings: `{"model":"gamma-5.4","input":${'['.repeat(5000)}"x"${']'.repeat(5000)}}`,
  };
  // From 128 KiB a body is parsed in steps (src/pipeline/admission.ts): the same bound holds there.
  const padding = 'x'.repeat(200 * 1024);
  cases.large = `{"model":"gamma-5.4","messages":[{"role":"user","content":"${padding}"}],"tools":[{"type":"function","function":{"name":"f","parameters":${deep(129)}}}]}`;
  for (const [name, body] of Object.entries(cases)) {
    const path = name === 'embeddings' ? '/v1/embeddings' : '/v1/chat/completions';
    const res = await raw(h.origin, 'POST', path, { headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
    t.equal(res.status, 400, `${name}: 400`);
    t.match(res.json().error, { code: 'invalid_json', message: /deeper than 128 levels/ }, name);
  }
  const fine = await raw(h.origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: `{"model":"gamma-5.4","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f","parameters":${deep(100)}}}]}`,
  });
  t.equal(fine.status, 200, '100 levels pass');
});

t.test('only allowlisted caller headers reach a vendor', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const headers = {
    authorization: `Bearer ${key}`,
    'content-type': 'application/json',
    'user-agent': 'test-agent/1.0',
    'x-stainless-os': 'Linux',
    'x-goog-user-project': 'someone-elses-project',
    'anthropic-beta': 'context-1m-2025-08-07',
    'openai-project': 'proj_caller',
    'x-random': 'nope',
  };
  for (const [model, sim] of [
    ['gamma-5.4', h.gamma],
    ['alpha-sonnet-4.6', h.alpha],
    ['beta-3-flash', h.beta],
  ] as const) {
    const res = await raw(h.origin, 'POST', '/v1/chat/completions', { headers, body: chatBody(model) });
    t.equal(res.status, 200);
    const seen = sim.requests.at(-1)?.headers ?? {};
    t.match(seen, { 'user-agent': 'test-agent/1.0', 'x-stainless-os': 'Linux' }, `${model}: the default allowlist`);
    for (const name of ['x-goog-user-project', 'anthropic-beta', 'openai-project', 'x-random']) t.equal(seen[name], undefined, `${model}: no ${name}`);
  }
});

import t from 'tap';
import { FakeClock, raw, startHarness, type Harness } from '../helpers/harness.js';
import { usage } from '../helpers/usage.js';

/**
 * A limit on output tokens above the model's catalogue maximum is clamped to it (plugin
 * `capabilities`), announced in `x-gateway-adjusted`, and the upstream and the ceiling both get
 * the clamped number; under `parameters: strict` it is a 400 naming the parameter the caller
 * used, in the envelope of the format called. The maximum is per completion (`n`, a legacy
 * prompt list).
 */

/** One model of each family and its catalogue maximum (config/models.yaml). */
const MODELS = [
  { family: 'alpha', model: 'alpha-haiku-4.5', max: 64_000 },
  { family: 'beta', model: 'beta-3-flash', max: 65_536 },
  { family: 'gamma', model: 'gamma-5.4', max: 128_000 },
] as const;

type Family = (typeof MODELS)[number]['family'];

/** Each way of naming the limit: the endpoint, the parameter, and a body asking for `tokens`. */
const FORMATS = [
  {
    name: 'chat max_tokens',
    path: '/v1/chat/completions',
    param: 'max_tokens',
    body: (model: string, tokens: number) => ({ model, max_tokens: tokens, messages: [{ role: 'user', content: 'hi [[sim:tokens=3]]' }] }),
  },
  {
    name: 'chat max_completion_tokens',
    path: '/v1/chat/completions',
    param: 'max_completion_tokens',
    // It wins over max_tokens, so it is the one named.
    body: (model: string, tokens: number) => ({
      model,
      max_tokens: 10,
      max_completion_tokens: tokens,
      messages: [{ role: 'user', content: 'hi [[sim:tokens=3]]' }],
    }),
  },
  {
    name: 'legacy completions',
    path: '/v1/completions',
    param: 'max_tokens',
    body: (model: string, tokens: number) => ({ model, max_tokens: tokens, prompt: 'hi [[sim:tokens=3]]' }),
  },
  {
    name: 'responses',
    path: '/v1/responses',
    param: 'max_output_tokens',
    body: (model: string, tokens: number) => ({ model, max_output_tokens: tokens, input: 'hi [[sim:tokens=3]]' }),
  },
  {
    name: 'messages',
    path: '/v1/messages',
    param: 'max_tokens',
    body: (model: string, tokens: number) => ({ model, max_tokens: tokens, messages: [{ role: 'user', content: 'hi [[sim:tokens=3]]' }] }),
  },
] as const;

const post = (h: Harness, key: string, path: string, body: unknown) =>
  raw(h.origin, 'POST', path, {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });

const upstreamCount = (h: Harness, family: Family): number => h[family].requests.length;

/** The output limit an upstream request carries, in whichever field its wire format has. */
function upstreamLimit(h: Harness, family: Family): unknown {
  const body = JSON.parse(h[family].requests.at(-1)?.body ?? '{}') as Record<string, any>;
  return body['max_completion_tokens'] ?? body['max_tokens'] ?? body['generationConfig']?.maxOutputTokens;
}

t.test(
  'every format × every family: a limit over the maximum is clamped to it and announced; under parameters: strict it is a 400 naming the parameter',
  async (t) => {
    for (const policy of ['lenient', 'strict'] as const) {
      const h = await startHarness(t, { env: { GATEWAY_PARAMETERS: policy } });
      const { key } = await h.createKey();
      for (const format of FORMATS) {
        for (const { family, model, max } of MODELS) {
          const where = `${policy}: ${format.name} → ${model}`;
          const before = upstreamCount(h, family);
          const over = await post(h, key, format.path, format.body(model, max + 1));
          if (policy === 'lenient') {
            t.equal(over.status, 200, `${where}: ${max + 1} answered (${over.text.slice(0, 200)})`);
            t.equal(over.headers.get('x-gateway-adjusted'), `${format.param}=clamped:${max}`, `${where}: announced`);
            t.equal(upstreamCount(h, family), before + 1, `${where}: one upstream request`);
            t.equal(upstreamLimit(h, family), max, `${where}: the upstream is asked for the maximum`);
            continue;
          }
          t.equal(over.status, 400, `${where}: ${max + 1} refused`);
          const message = `${format.param} is ${max + 1}; ${model} produces at most ${max} output tokens.`;
          if (format.path === '/v1/messages') {
            t.same(
              over.json(),
              { type: 'error', error: { type: 'invalid_request_error', code: 'invalid_request', param: format.param, message } },
              `${where}: the Messages envelope`,
            );
          } else {
            t.same(over.json(), { error: { type: 'invalid_request', code: 'invalid_request', param: format.param, message } }, `${where}: our envelope`);
          }
          t.equal(upstreamCount(h, family), before, `${where}: no upstream request`);
        }
      }
      for (const format of FORMATS) {
        for (const { family, model, max } of MODELS) {
          const where = `${policy}: ${format.name} → ${model}`;
          const exact = await post(h, key, format.path, format.body(model, max));
          t.equal(exact.status, 200, `${where}: exactly ${max} answered (${exact.text.slice(0, 200)})`);
          t.equal(exact.headers.get('x-gateway-adjusted'), null, `${where}: exactly the maximum is no adjustment`);
          t.equal(upstreamLimit(h, family), max, `${where}: sent as asked`);
        }
      }
      await h.close();
    }
  },
);

t.test('the maximum is per completion: n and a legacy prompt list may each ask for it', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const chat = (tokens: number) => ({ model: 'gamma-5.4', n: 2, max_tokens: tokens, messages: [{ role: 'user', content: 'hi [[sim:tokens=2]]' }] });
  t.equal((await post(h, key, '/v1/chat/completions', chat(128_000))).status, 200, 'n = 2 × the maximum');
  const overN = await post(h, key, '/v1/chat/completions', chat(128_001));
  t.equal(overN.status, 200);
  t.equal(overN.headers.get('x-gateway-adjusted'), 'max_tokens=clamped:128000', 'clamped per completion');

  const legacy = (tokens: number) => ({ model: 'gamma-5.4', best_of: 2, n: 2, max_tokens: tokens, prompt: ['a [[sim:tokens=2]]', 'b'] });
  t.equal((await post(h, key, '/v1/completions', legacy(128_000))).status, 200, 'two prompts × best_of 2 × the maximum');
  const overList = await post(h, key, '/v1/completions', legacy(128_001));
  t.equal(overList.status, 200);
  t.equal(overList.headers.get('x-gateway-adjusted'), 'max_tokens=clamped:128000');
  t.equal(JSON.parse(h.gamma.requests.at(-1)?.body ?? '{}').max_tokens, 128_000, 'the legacy request carries the clamped limit');
});

t.test('the audit repro: the ceiling reserves the clamped limit, and is never overshot', async (t) => {
  const h = await startHarness(t, { clock: new FakeClock() });
  // alpha-haiku-4.5 charges $0.13 per 1M output tokens: 130 nano-dollars a token. $0.0084 covers
  // the 64 000 tokens the model produces (8 320 000), not the 65 000 asked (8 450 000): reserving
  // the caller's number would refuse the call (402); the clamped one admits it.
  const { key } = await h.createKey({ monthly_ceiling_usd: '0.0084' });
  const content = 'go [[sim:tokens=65000]]';
  const clamped = await post(h, key, '/v1/chat/completions', { model: 'alpha-haiku-4.5', max_tokens: 65_000, messages: [{ role: 'user', content }] });
  t.equal(clamped.status, 200, 'admitted: the reservation is for 64000 tokens');
  t.equal(clamped.headers.get('x-gateway-adjusted'), 'max_tokens=clamped:64000');
  t.equal(clamped.json().usage.completion_tokens, 64_000, 'and the simulator stops there');
  const cycle = (await usage(h, key)).cycle;
  t.equal(cycle['spent_usd'], '0.00832', 'billed what was reserved');
  t.equal(cycle['reserved_usd'], '0.00');
  for (const [path, body] of [
    ['/v1/responses', { max_output_tokens: 65_000, input: content }],
    ['/v1/messages', { max_tokens: 65_000, messages: [{ role: 'user', content }] }],
  ] as const) {
    const res = await post(h, key, path, { model: 'alpha-haiku-4.5', ...body });
    t.equal(res.status, 402, `${path}: the rest of the ceiling cannot hold another 64000 tokens`);
  }
  t.equal(h.alpha.requests.length, 1, 'only the admitted call reached the upstream');
});

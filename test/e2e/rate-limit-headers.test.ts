import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { chatBody, FakeClock, raw, startHarness } from '../helpers/harness.js';

/**
 * The rate cap's headroom in each format's headers (docs/api-contract.md#rate-limit-headers): OpenAI's on
 * the chat and Responses paths, Anthropic's on the Messages paths, none on the Gemini paths or
 * for a key without a cap; and no vendor's own rate-limit headers ever reach a caller.
 */

const OPENAI = ['x-ratelimit-limit-requests', 'x-ratelimit-remaining-requests', 'x-ratelimit-reset-requests'] as const;
const ANTHROPIC = ['anthropic-ratelimit-requests-limit', 'anthropic-ratelimit-requests-remaining', 'anthropic-ratelimit-requests-reset'] as const;
const json = { 'content-type': 'application/json' };
const pick = (headers: Headers, names: readonly string[]): Array<string | null> => names.map((name) => headers.get(name));

t.test('chat: the cap, what is left after the call, and when the oldest call leaves the window; the 429 carries them', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const { key } = await h.createKey({ rpm_limit: 3 });
  const send = (extra: Record<string, unknown> = {}) =>
    raw(h.origin, 'POST', '/v1/chat/completions', { headers: { authorization: `Bearer ${key}`, ...json }, body: chatBody('gamma-5.4', extra) });

  t.same(pick((await send()).headers, OPENAI), ['3', '2', '1m0s'], 'the first call: two left, the window empties a minute on');
  clock.advance(1_000);
  const streamed = await send({ stream: true });
  t.match(streamed.text, /data: \[DONE\]/);
  t.same(pick(streamed.headers, OPENAI), ['3', '1', '59s'], 'a stream too; the reset counts down to the first call leaving');
  clock.advance(250);
  t.same(pick((await send()).headers, OPENAI), ['3', '0', '58.75s'], 'none left');
  clock.advance(250);
  const limited = await send();
  t.equal(limited.status, 429);
  t.same(pick(limited.headers, OPENAI), ['3', '0', '58.5s'], 'the refusal: none left, the reset its wait');
  t.equal(limited.headers.get('retry-after'), '59');
  clock.advance(58_500);
  t.same(pick((await send()).headers, OPENAI), ['3', '0', '1s'], 'the first call left: admitted, and the window full again until the second leaves');
});

t.test('an error after the take carries them (the ceiling refuses): a key without a cap gets none', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const capped = await h.createKey({ rpm_limit: 5, monthly_ceiling_usd: '0.000001' });
  const refused = await raw(h.origin, 'POST', '/v1/chat/completions', { headers: { authorization: `Bearer ${capped.key}`, ...json }, body: chatBody() });
  t.equal(refused.status, 402);
  t.same(pick(refused.headers, OPENAI), ['5', '4', '1m0s'], 'the take counted, then the ceiling refused');
  const free = await h.createKey();
  const answered = await raw(h.origin, 'POST', '/v1/chat/completions', { headers: { authorization: `Bearer ${free.key}`, ...json }, body: chatBody() });
  t.equal(answered.status, 200);
  t.same(pick(answered.headers, [...OPENAI, ...ANTHROPIC]), [null, null, null, null, null, null], 'no cap, no headers');
});

t.test('each format its dialect: Responses OpenAI, Messages Anthropic (RFC 3339), Gemini none', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const { key } = await h.createKey({ rpm_limit: 10 });
  const responses = await raw(h.origin, 'POST', '/v1/responses', {
    headers: { authorization: `Bearer ${key}`, ...json },
    body: JSON.stringify({ model: 'gamma-5.4', input: 'hi' }),
  });
  t.equal(responses.status, 200, responses.text);
  t.same(pick(responses.headers, OPENAI), ['10', '9', '1m0s']);
  t.same(pick(responses.headers, ANTHROPIC), [null, null, null]);

  clock.advance(1_500);
  const messages = (stream: boolean) =>
    raw(h.origin, 'POST', '/v1/messages', {
      headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01', ...json },
      body: JSON.stringify({ model: 'alpha-sonnet-4.6', max_tokens: 16, stream, messages: [{ role: 'user', content: 'hi' }] }),
    });
  const whole = await messages(false);
  t.equal(whole.status, 200, whole.text);
  t.same(pick(whole.headers, ANTHROPIC), ['10', '8', '2026-11-15T12:01:00Z'], 'the reset as a time: when the Responses call at 12:00:00 leaves');
  t.same(pick(whole.headers, OPENAI), [null, null, null]);
  const streamed = await messages(true);
  t.match(streamed.text, /event: message_stop/);
  t.same(pick(streamed.headers, ANTHROPIC), ['10', '7', '2026-11-15T12:01:00Z']);

  const gemini = await raw(h.origin, 'POST', '/v1beta/models/beta-3-flash:generateContent', {
    headers: { 'x-goog-api-key': key, ...json },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
  });
  t.equal(gemini.status, 200, gemini.text);
  t.same(pick(gemini.headers, [...OPENAI, ...ANTHROPIC]), [null, null, null, null, null, null], 'the Gemini format has no such headers');
  clock.advance(1_000);
  t.same(pick((await messages(false)).headers, ANTHROPIC), ['10', '5', '2026-11-15T12:01:00Z'], 'the Gemini call was counted all the same');
});

/** Vendors' own rate-limit and quota headers, as a real upstream would send them. */
const VENDOR_HEADERS: Record<string, string> = {
  'x-ratelimit-limit-requests': '9999',
  'x-ratelimit-remaining-requests': '9998',
  'x-ratelimit-reset-requests': '6ms',
  'x-ratelimit-limit-tokens': '2000000',
  'x-ratelimit-remaining-tokens': '1999000',
  'x-ratelimit-reset-tokens': '30ms',
  'anthropic-ratelimit-requests-limit': '9999',
  'anthropic-ratelimit-requests-remaining': '9998',
  'anthropic-ratelimit-requests-reset': '2020-01-01T00:00:00Z',
  'anthropic-ratelimit-tokens-remaining': '1999000',
  'anthropic-ratelimit-unified-status': 'allowed',
  'x-goog-quota-remaining': '42',
};

/** A proxy in front of a simulator that adds VENDOR_HEADERS to every answer; `target` set once the simulator listens. */
async function vendorHeaderProxy(t: { teardown(fn: () => unknown): void }): Promise<{ url: string; target: string }> {
  const proxy = { url: '', target: '' };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const upstream = request(`${proxy.target}${req.url ?? '/'}`, { method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, { ...answer.headers, ...VENDOR_HEADERS });
      answer.pipe(res);
    });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  proxy.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return proxy;
}

t.test("no vendor's rate-limit headers reach a caller: each family, whole and streamed, with and without a cap", async (t) => {
  const proxies = { gamma: await vendorHeaderProxy(t), alpha: await vendorHeaderProxy(t), beta: await vendorHeaderProxy(t) };
  const h = await startHarness(t, {
    env: { GAMMA_BASE_URL: proxies.gamma.url, ALPHA_BASE_URL: proxies.alpha.url, BETA_BASE_URL: proxies.beta.url },
  });
  proxies.gamma.target = h.gamma.url;
  proxies.alpha.target = h.alpha.url;
  proxies.beta.target = h.beta.url;
  const capped = await h.createKey({ rpm_limit: 100 });
  const free = await h.createKey();
  const vendorNames = Object.keys(VENDOR_HEADERS);
  for (const model of ['gamma-5.4', 'alpha-sonnet-4.6', 'beta-3-flash']) {
    for (const stream of [false, true]) {
      for (const key of [capped.key, free.key]) {
        const res = await raw(h.origin, 'POST', '/v1/chat/completions', {
          headers: { authorization: `Bearer ${key}`, ...json },
          body: chatBody(model, { stream }),
        });
        const what = `${model}, ${stream ? 'streamed' : 'whole'}, ${key === free.key ? 'no cap' : 'a cap of 100'}`;
        t.equal(res.status, 200, what);
        const leaked = vendorNames.filter((name) => res.headers.get(name) === VENDOR_HEADERS[name]);
        t.same(leaked, [], `${what}: none of the vendor's`);
        t.equal(res.headers.get('x-ratelimit-limit-requests'), key === free.key ? null : '100', `${what}: ours only`);
      }
    }
  }
  const messages = await raw(h.origin, 'POST', '/v1/messages', {
    headers: { 'x-api-key': capped.key, 'anthropic-version': '2023-06-01', ...json },
    body: JSON.stringify({ model: 'alpha-sonnet-4.6', max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.equal(messages.status, 200);
  t.same(
    vendorNames.filter((name) => messages.headers.get(name) === VENDOR_HEADERS[name]),
    [],
    'the Messages format passing alpha through: none of the vendor’s',
  );
  t.equal(messages.headers.get('anthropic-ratelimit-requests-limit'), '100');

  // A vendor's 429 (no retry: the plugin retries only when the wait fits): its Retry-After is passed on, its rate-limit headers are not.
  for (const [sim, model] of [
    [h.gamma, 'gamma-5.4'],
    [h.alpha, 'alpha-sonnet-4.6'],
    [h.beta, 'beta-3-flash'],
  ] as const) {
    for (let i = 0; i < 4; i++) sim.faults.push({ status: 429, retryAfter: '600' });
    const res = await raw(h.origin, 'POST', '/v1/chat/completions', { headers: { authorization: `Bearer ${capped.key}`, ...json }, body: chatBody(model) });
    sim.faults.length = 0;
    t.equal(res.status, 429, `${model}: the vendor's 429`);
    t.equal(res.headers.get('retry-after'), '600', `${model}: the vendor's Retry-After, as the contract passes it`);
    t.same(
      vendorNames.filter((name) => res.headers.get(name) === VENDOR_HEADERS[name]),
      [],
      `${model}: none of its rate-limit headers`,
    );
    t.equal(res.headers.get('x-ratelimit-limit-requests'), '100', `${model}: ours, the call having been counted`);
  }
  t.ok(h.alpha.requests.length > 0 && h.beta.requests.length > 0 && h.gamma.requests.length > 0, 'every family was called through its proxy');
});

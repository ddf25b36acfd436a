import t from 'tap';
import type { StoreExtension } from '../../src/store/extension.js';
import type { Store } from '../../src/store/store.js';
import { chatBody, FakeClock, raw, startHarness, type Harness } from '../helpers/harness.js';
import { pluginConfig } from '../helpers/ops.js';
import { openResponsesSocket } from '../helpers/responses-socket.js';
import { createGammaSimulator } from '../../plugins/vendor-gamma/simulator.js';

/**
 * The response cache (plugins/response-cache, docs/caching.md#response-cache): off by default,
 * on per key (`cache_ttl_s`) or per request (`x-gateway-cache-ttl`); a hit is given again with no
 * upstream, a stream frame for frame, at no cost, and is a ledger row marked cached.
 */

const json = { 'content-type': 'application/json' };
const auth = (key: string, extra: Record<string, string> = {}): Record<string, string> => ({ authorization: `Bearer ${key}`, ...json, ...extra });
const chat = (h: Harness, key: string, body: string, headers: Record<string, string> = {}) =>
  raw(h.origin, 'POST', '/v1/chat/completions', { headers: auth(key, headers), body });
const upstreamCalls = (h: Harness): number => h.gamma.requests.filter((r) => r.path.includes('chat/completions')).length;

interface Totals {
  requests: number;
  cached_requests: number;
  prompt_tokens: number;
  cost_usd: string;
  upstream_cost_usd: string;
}
async function totals(h: Harness, keyId: string): Promise<Totals> {
  return ((await (await h.admin('GET', `/keys/${keyId}/usage`)).json()) as { totals: Totals }).totals;
}
async function spent(h: Harness, keyId: string): Promise<unknown> {
  const keys = (await (await h.admin('GET', '/usage/keys')).json()) as { data: Array<Record<string, unknown>> };
  const row = keys.data.find((k) => k['key_id'] === keyId);
  return [row?.['cycle_spent_usd'], row?.['cycle_upstream_spent_usd']];
}

t.test('a second identical request is a hit: no upstream, the same body, a cached ledger row at no cost', async (t) => {
  const h = await startHarness(t);
  const created = (await (await h.admin('POST', '/keys', { name: 'cached', cache_ttl_s: 60 })).json()) as { id: string; key: string; cache_ttl_s: number };
  t.equal(created.cache_ttl_s, 60, 'the admin API shows the key ttl');
  const body = chatBody('gamma-5.4', { messages: [{ role: 'user', content: 'cache me [[sim:tokens=5]]' }] });

  const first = await chat(h, created.key, body);
  t.equal(first.status, 200);
  t.equal(first.headers.get('x-gateway-cache'), 'miss');
  const upstream = upstreamCalls(h);
  const afterFirst = await totals(h, created.id);
  const spendAfterFirst = await spent(h, created.id);

  const second = await chat(h, created.key, body);
  t.equal(second.status, 200);
  t.equal(second.headers.get('x-gateway-cache'), 'hit');
  t.equal(second.text, first.text, 'the body as the caller first got it');
  t.equal(upstreamCalls(h), upstream, 'the upstream was not called again');

  const afterSecond = await totals(h, created.id);
  t.equal(afterSecond.requests, 2, 'the hit has its ledger row');
  t.equal(afterSecond.cached_requests, 1, 'marked cached');
  t.equal(afterSecond.cost_usd, afterFirst.cost_usd, 'the caller paid nothing for the hit');
  t.equal(afterSecond.upstream_cost_usd, afterFirst.upstream_cost_usd, 'nor did the operator');
  t.same(await spent(h, created.id), spendAfterFirst, "the key's cycle spend is unchanged");
});

t.test('a streamed hit replays the same events; streamed and whole answers are different entries', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey({ cache_ttl_s: 600 });
  const body = chatBody('gamma-5.4', {
    stream: true,
    stream_options: { include_usage: true },
    messages: [{ role: 'user', content: 'stream [[sim:tokens=6]]' }],
  });
  const first = await chat(h, key, body);
  t.equal(first.headers.get('x-gateway-cache'), 'miss');
  t.match(first.headers.get('content-type'), /text\/event-stream/);
  const upstream = upstreamCalls(h);
  const second = await chat(h, key, body);
  t.equal(second.headers.get('x-gateway-cache'), 'hit');
  t.match(second.headers.get('content-type'), /text\/event-stream/);
  const events = (text: string): string[] => text.split('\n\n').filter(Boolean);
  t.ok(events(first.text).length > 6, 'a stream of several events');
  t.same(events(second.text), events(first.text), 'event for event');
  t.equal(upstreamCalls(h), upstream);

  const whole = await chat(h, key, chatBody('gamma-5.4', { messages: [{ role: 'user', content: 'stream [[sim:tokens=6]]' }] }));
  t.equal(whole.headers.get('x-gateway-cache'), 'miss', 'the same request not streamed is another entry');
  t.equal(upstreamCalls(h), upstream + 1);
});

t.test('the match: identifiers and member order do not count, the content, the model and the key do', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey({ cache_ttl_s: 600 });
  const other = await h.createKey({ cache_ttl_s: 600 });
  const messages = [{ role: 'user', content: 'identify [[sim:tokens=3]]' }];
  t.equal((await chat(h, key, JSON.stringify({ model: 'gamma-5.4', messages, user: 'a', metadata: { run: '1' } }))).headers.get('x-gateway-cache'), 'miss');
  const same = JSON.stringify({ messages, safety_identifier: 's', prompt_cache_key: 'p', user: 'b', model: 'gamma-5.4' });
  t.equal((await chat(h, key, same)).headers.get('x-gateway-cache'), 'hit', 'user, metadata, safety_identifier, prompt_cache_key and member order left out');
  t.equal(
    (await chat(h, key, JSON.stringify({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'identify! [[sim:tokens=3]]' }] }))).headers.get(
      'x-gateway-cache',
    ),
    'miss',
    'another content',
  );
  t.equal((await chat(h, key, JSON.stringify({ model: 'gamma-5.4', messages, temperature: 0.5 }))).headers.get('x-gateway-cache'), 'miss', 'another parameter');
  t.equal((await chat(h, key, JSON.stringify({ model: 'gamma-5.2', messages }))).headers.get('x-gateway-cache'), 'miss', 'another model');
  t.equal((await chat(h, other.key, JSON.stringify({ model: 'gamma-5.4', messages }))).headers.get('x-gateway-cache'), 'miss', 'another key');
});

t.test('entries expire after their ttl; the request header sets it, 0 turns the cache off', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const { id, key } = await h.createKey();
  const body = chatBody('gamma-5.4', { messages: [{ role: 'user', content: 'expire [[sim:tokens=2]]' }] });
  const ttl = { 'x-gateway-cache-ttl': '30' };
  t.equal((await chat(h, key, body, ttl)).headers.get('x-gateway-cache'), 'miss', 'the header turns the cache on for a key without a ttl');
  clock.advance(29_000);
  t.equal((await chat(h, key, body, ttl)).headers.get('x-gateway-cache'), 'hit');
  const upstream = upstreamCalls(h);
  t.equal((await chat(h, key, body, { 'x-gateway-cache-ttl': '0' })).headers.get('x-gateway-cache'), null, '0: no caching for this request');
  t.equal(upstreamCalls(h), upstream + 1);
  clock.advance(1_000);
  t.equal((await chat(h, key, body, ttl)).headers.get('x-gateway-cache'), 'miss', 'expired after 30 s');

  // The key's ttl, changed through the admin API; the header's 0 wins over it.
  t.equal(((await (await h.admin('PATCH', `/keys/${id}`, { cache_ttl_s: 120 })).json()) as { cache_ttl_s: number }).cache_ttl_s, 120);
  await new Promise((resolve) => setTimeout(resolve, 1100)); // the one-second key memory
  t.equal((await chat(h, key, body)).headers.get('x-gateway-cache'), 'hit', 'the key ttl turns it on without a header');
  t.equal((await chat(h, key, body, { 'x-gateway-cache-ttl': '0' })).headers.get('x-gateway-cache'), null, "0 wins over the key's ttl");
});

t.test("a key's entries are bounded in bytes: the oldest are evicted; an answer above the entry bound is not kept", async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock, configure: pluginConfig('response-cache', { max_bytes_per_key: 2000, max_entry_bytes: 1000 }) });
  const { key } = await h.createKey({ cache_ttl_s: 3600 });
  const ask = (n: number, tokens = 3) => chatBody('gamma-5.4', { messages: [{ role: 'user', content: `bound ${n} [[sim:tokens=${tokens}]]` }] });
  for (let n = 0; n < 6; n++) {
    t.equal((await chat(h, key, ask(n))).headers.get('x-gateway-cache'), 'miss');
    clock.advance(1000);
  }
  t.equal((await chat(h, key, ask(5))).headers.get('x-gateway-cache'), 'hit', 'the newest is kept');
  t.equal((await chat(h, key, ask(0))).headers.get('x-gateway-cache'), 'miss', 'the oldest was evicted');

  const big = ask(9, 400);
  t.ok((await chat(h, key, big)).text.length > 1000);
  t.equal((await chat(h, key, big)).headers.get('x-gateway-cache'), 'miss', 'too large to keep');
});

t.test('off by default: no header, no key ttl, no cache header and no cache store access', async (t) => {
  const touched: string[] = [];
  // The cache's sub-store, its methods wrapped to note every use.
  const noted = <T extends object>(sub: T): T => {
    const methods: PropertyDescriptorMap = {};
    for (const name of ['get', 'put', 'prune']) {
      const method = (sub as Record<string, (...args: unknown[]) => unknown>)[name];
      if (!method) continue;
      methods[name] = {
        value: (...args: unknown[]) => {
          touched.push(name);
          return method.apply(sub, args);
        },
      };
    }
    return Object.create(sub, methods) as T;
  };
  const noting = (store: Store): Store =>
    Object.create(store, {
      extend: {
        value: async <T extends object>(extension: StoreExtension<T>): Promise<T> => {
          const opened = await store.extend(extension);
          return extension.name === 'response-cache' ? noted(opened) : opened;
        },
      },
    }) as Store;
  const h = await startHarness(t, { wrapStore: noting });
  const { key } = await h.createKey();
  const body = chatBody('gamma-5.4');
  for (let i = 0; i < 2; i++) {
    const res = await chat(h, key, body);
    t.equal(res.status, 200);
    t.equal(res.headers.get('x-gateway-cache'), null);
  }
  t.equal(upstreamCalls(h), 2, 'every call went upstream');
  t.same(touched, [], 'the cache store was never asked');
  const asked = await chat(h, key, body, { 'x-gateway-cache-ttl': '5' });
  t.equal(asked.headers.get('x-gateway-cache'), 'miss', asked.text);
  t.same(touched.slice(0, 2), ['get', 'put'], 'but is, for a call that asks (then the hourly prune may run)');
});

t.test('x-gateway-cache-ttl: a malformed value is a 400 in the envelope of the format called', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  for (const bad of ['abc', '-1', '1.5', '86401', '', '9999999']) {
    const res = await chat(h, key, chatBody(), { 'x-gateway-cache-ttl': bad });
    t.equal(res.status, 400, `'${bad}'`);
    t.match(res.json(), { error: { type: 'invalid_request', param: 'x-gateway-cache-ttl', message: /whole number of seconds from 0/ } });
  }
  const messages = await raw(h.origin, 'POST', '/v1/messages', {
    headers: auth(key, { 'x-gateway-cache-ttl': 'soon', 'anthropic-version': '2023-06-01' }),
    body: JSON.stringify({ model: 'alpha-sonnet-4.6', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
  });
  t.equal(messages.status, 400);
  t.match(messages.json(), { type: 'error', error: { type: 'invalid_request_error', message: /x-gateway-cache-ttl/ } });
  t.equal(upstreamCalls(h), 0);

  for (const bad of [-1, 86_401, 1.5, '60']) {
    const res = await h.admin('POST', '/keys', { name: 'bad ttl', cache_ttl_s: bad });
    t.equal(res.status, 400, `cache_ttl_s ${JSON.stringify(bad)}`);
  }
});

t.test('other formats: a Messages stream and a Gemini answer are given again as first sent', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey({ cache_ttl_s: 600 });
  const alphaCalls = (): number => h.alpha.requests.length;
  const messages = () =>
    raw(h.origin, 'POST', '/v1/messages', {
      headers: auth(key, { 'anthropic-version': '2023-06-01' }),
      body: JSON.stringify({
        model: 'alpha-sonnet-4.6',
        max_tokens: 100,
        stream: true,
        metadata: { user_id: 'u' },
        messages: [{ role: 'user', content: 'hi [[sim:tokens=4]]' }],
      }),
    });
  const first = await messages();
  t.equal(first.headers.get('x-gateway-cache'), 'miss');
  const before = alphaCalls();
  const second = await messages();
  t.equal(second.headers.get('x-gateway-cache'), 'hit');
  t.equal(second.text, first.text);
  t.match(second.text, /event: message_stop/, 'the last event too');
  t.equal(alphaCalls(), before);

  const gemini = () =>
    raw(h.origin, 'POST', '/v1beta/models/beta-3-flash:generateContent', {
      headers: { 'x-goog-api-key': key, ...json },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi [[sim:tokens=4]]' }] }] }),
    });
  const g1 = await gemini();
  t.equal(g1.status, 200, g1.text);
  t.equal(g1.headers.get('x-gateway-cache'), 'miss');
  const g2 = await gemini();
  t.equal(g2.headers.get('x-gateway-cache'), 'hit');
  t.equal(g2.text, g1.text);
});

t.test('a hit counts against the rate cap, and the ceiling holds nothing for it', async (t) => {
  const h = await startHarness(t);
  const created = (await (await h.admin('POST', '/keys', { name: 'limited', cache_ttl_s: 600, rpm_limit: 3 })).json()) as { id: string; key: string };
  const body = chatBody('gamma-5.4', { messages: [{ role: 'user', content: 'limits [[sim:tokens=3]]' }] });
  t.equal((await chat(h, created.key, body)).headers.get('x-gateway-cache'), 'miss');
  // The ceiling, set to what the key has spent: reached, every call that costs something is refused.
  const [spentUsd] = (await spent(h, created.id)) as [string];
  t.equal((await h.admin('PATCH', `/keys/${created.id}`, { monthly_ceiling_usd: spentUsd })).status, 200);
  t.equal((await chat(h, created.key, chatBody('gamma-5.4'))).status, 402, 'a call that would cost is refused');
  const hit = await chat(h, created.key, body);
  t.equal(hit.status, 200, 'a hit costs nothing: the ceiling does not refuse it');
  t.equal(hit.headers.get('x-gateway-cache'), 'hit');
  const limited = await chat(h, created.key, body);
  t.equal(limited.status, 429, 'the fourth request of the minute, a hit or not, is over the rate cap');
});

t.test('a Responses answer is given again with the id it was first answered with', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey({ cache_ttl_s: 600 });
  const ask = () =>
    raw(h.origin, 'POST', '/v1/responses', {
      headers: auth(key),
      body: JSON.stringify({ model: 'gamma-5.4', input: 'hello [[sim:tokens=3]]', user: 'someone', prompt_cache_key: 'k' }),
    });
  const first = await ask();
  t.equal(first.status, 200, first.text);
  t.equal(first.headers.get('x-gateway-cache'), 'miss');
  const second = await ask();
  t.equal(second.headers.get('x-gateway-cache'), 'hit');
  t.equal(second.json().id, first.json().id);
  const retrieved = await raw(h.origin, 'GET', `/v1/responses/${String(first.json().id)}`, { headers: auth(key) });
  t.equal(retrieved.status, 200, 'the response stored by the first call is the one a hit names');
});

t.test('an answer that carries a secret of the gateway is not kept', async (t) => {
  // The upstream credential is a word the simulator writes: its answers carry it.
  const gamma = createGammaSimulator({ apiKey: 'deterministic' });
  t.teardown(() => gamma.close());
  const h = await startHarness(t, { gamma, env: { GAMMA_API_KEY: 'deterministic' } });
  const { key } = await h.createKey({ cache_ttl_s: 600 });
  const body = chatBody('gamma-5.4', { messages: [{ role: 'user', content: 'secret [[sim:tokens=12]]' }] });
  const first = await chat(h, key, body);
  t.match(first.text, 'deterministic');
  t.equal(first.headers.get('x-gateway-cache'), 'miss');
  t.equal((await chat(h, key, body)).headers.get('x-gateway-cache'), 'miss', 'never given again');
  t.notOk((await h.databaseText()).includes('simulated upstream; this reply is deterministic'), 'the store holds no such answer');
  const short = chatBody('gamma-5.4', { messages: [{ role: 'user', content: 'secret [[sim:tokens=3]]' }] });
  await chat(h, key, short);
  t.equal((await chat(h, key, short)).headers.get('x-gateway-cache'), 'hit', 'an answer without it is kept');
});

t.test("a WebSocket-mode message is never answered from the cache: it continues the connection's own memory", async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey({ cache_ttl_s: 600 });
  const socket = await openResponsesSocket(h.origin, key);
  if (!('turn' in socket)) throw new Error(`upgrade refused: ${socket.status}`);
  t.teardown(() => socket.close());
  const message = { type: 'response.create', model: 'gamma-5.4', input: 'socket [[sim:tokens=3]]' };
  const first = await socket.turn(message);
  const second = await socket.turn(message);
  const idOf = (events: Array<Record<string, any>>): unknown => events.at(-1)?.['response']?.id;
  t.equal(first.at(-1)?.['type'], 'response.completed');
  t.not(idOf(second), idOf(first), 'a new response, answered upstream');
  t.equal(upstreamCalls(h), 2);
});

t.test('two gateways on one store share the entries', async (t) => {
  const one = await startHarness(t);
  const url = one.config.database.url;
  const two = await startHarness(t, { gamma: one.gamma, env: url ? { GATEWAY_DATABASE_URL: url } : { GATEWAY_DB: one.dbPath } });
  const { key } = await one.createKey({ cache_ttl_s: 600 });
  const body = chatBody('gamma-5.4', { messages: [{ role: 'user', content: 'shared [[sim:tokens=3]]' }] });
  const first = await chat(one, key, body);
  t.equal(first.headers.get('x-gateway-cache'), 'miss');
  const upstream = upstreamCalls(one);
  const second = await chat(two, key, body);
  t.equal(second.headers.get('x-gateway-cache'), 'hit', "the other instance's answer");
  t.equal(second.text, first.text);
  t.equal(upstreamCalls(one), upstream);
});

t.test('/metrics: gateway_response_cache_total by result and model, no series before the cache is used', async (t) => {
  const h = await startHarness(t, { configure: pluginConfig('response-cache', { max_bytes_per_key: 20_000, max_entry_bytes: 1000 }) });
  const { key } = await h.createKey();
  const scrape = async (): Promise<string> => (await raw(h.origin, 'GET', '/metrics')).text;
  const count = (text: string, result: string, model = 'gamma-5.4'): number =>
    Number(new RegExp(`^gateway_response_cache_total\\{result="${result}",model="${model}"\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
  const body = chatBody('gamma-5.4', { messages: [{ role: 'user', content: 'count me [[sim:tokens=3]]' }] });

  t.equal((await chat(h, key, body)).status, 200);
  t.notMatch(await scrape(), /^gateway_response_cache_total\{/m, 'calls that do not use the cache make no series');

  const ttl = { 'x-gateway-cache-ttl': '60' };
  t.equal((await chat(h, key, body, ttl)).headers.get('x-gateway-cache'), 'miss');
  t.equal((await chat(h, key, body, ttl)).headers.get('x-gateway-cache'), 'hit');
  t.equal((await chat(h, key, body, ttl)).headers.get('x-gateway-cache'), 'hit');
  const big = chatBody('gamma-5.2', { messages: [{ role: 'user', content: 'too large to keep [[sim:tokens=400]]' }] });
  t.equal((await chat(h, key, big, ttl)).headers.get('x-gateway-cache'), 'miss');
  const text = await scrape();
  t.same(
    [count(text, 'hit'), count(text, 'miss'), count(text, 'stored'), count(text, 'miss', 'gamma-5.2'), count(text, 'stored', 'gamma-5.2')],
    [2, 1, 1, 1, 0],
    'two hits and a miss kept on gamma-5.4; a miss on gamma-5.2 whose answer was too large to keep',
  );
  t.notMatch(text, /gateway_response_cache_total\{result="stored",model="gamma-5.2"\}/, 'no series for what never happened');
});

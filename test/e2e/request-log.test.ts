import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { ID_PREFIX, type RequestLogStore, type RequestRecord } from '../../plugins/request-log/store/log-store.js';
import { REQUEST_LOG_STATE } from '../../plugins/request-log/store/state.js';
import { parseUsd } from '../../src/catalogue/money.js';
import { definePlugin } from '../../src/chain/plugin.js';
import type { StoreExtension } from '../../src/store/extension.js';
import type { Store } from '../../src/store/store.js';
import { FakeClock, startHarness, type Harness } from '../helpers/harness.js';
import { logRecord } from '../helpers/request-records.js';
import { usage } from '../helpers/usage.js';

/**
 * The request log (docs/request-log.md): every call of a known key is listed by
 * `GET /admin/v1/requests` within a second of its end, with the ledger's tokens and costs, the
 * reasoning count, time to first token for a stream; refusals too, a keyless call never; no
 * body or secret in a record; filters and cursor paging through the API; its validation errors;
 * records beyond the retention pruned.
 */

type Json = Record<string, any>;
const EPHEMERAL = { type: 'ephemeral' };
const PROMPT = 'Count [[sim:tokens=40]] zebra-marmalade-7731';
/** Within this of a call's end its record is listed (the plugin writes every 200 ms). */
const LISTED_WITHIN_MS = 1000;

async function post(h: Harness, key: string, path: string, body: Json): Promise<{ status: number; text: string }> {
  const res = await fetch(`${h.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
  return { status: res.status, text: await res.text() };
}

async function requests(h: Harness, query: string): Promise<{ status: number; body: Json }> {
  const res = await h.admin('GET', `/requests${query}`);
  return { status: res.status, body: (await res.json()) as Json };
}

/** The key's records once there are `count`, asserting they came within LISTED_WITHIN_MS of now. */
async function listed(t: Test, h: Harness, keyId: string, count: number): Promise<Json[]> {
  const start = Date.now();
  for (;;) {
    const { body } = await requests(h, `?key_id=${keyId}`);
    const data = body['data'] as Json[];
    if (data.length >= count || Date.now() - start > 5 * LISTED_WITHIN_MS) {
      t.ok(Date.now() - start <= LISTED_WITHIN_MS, `listed within ${LISTED_WITHIN_MS} ms (${Date.now() - start} ms)`);
      t.equal(data.length, count, `${count} record(s) of ${keyId}`);
      return data;
    }
    await sleep(20);
  }
}

t.test('a call is listed within a second with the ledger row’s tokens and costs; streamed, reasoning and prompt-cache counts too', async (t) => {
  const h = await startHarness(t, { clock: new FakeClock() });
  const plain = await h.createKey({ name: 'plain' });
  await h.client(plain.key).chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: PROMPT }] });
  const [whole] = await listed(t, h, plain.id, 1);
  const ledger = (await usage(h, plain.key)).totals;
  t.match(whole, {
    object: 'request',
    created_at: '2026-11-15T12:00:00.000Z',
    key_id: plain.id,
    model: 'gamma-5.4',
    endpoint: 'chat.completions',
    stream: false,
    deployment: 'default',
    status: 200,
    outcome: 'ok',
    ttft_ms: null,
    usage: { input_tokens: ledger.prompt_tokens, output_tokens: 40, cache_read_tokens: 0, cache_write_tokens: 0, reasoning_tokens: 0 },
    cost_usd: ledger.cost_usd,
    upstream_cost_usd: ledger.upstream_cost_usd,
    attempts: 1,
    cache_hit: false,
    trace_id: null,
    trace_url: null,
  });
  t.ok(typeof whole?.['latency_ms'] === 'number' && whole['latency_ms'] > 0, 'a latency');
  t.match(whole?.['id'], /^req_[0-9a-f]{12}[A-Za-z0-9]{24}$/);
  const one = await h.admin('GET', `/requests/${String(whole?.['id'])}`);
  t.same(await one.json(), whole, 'the detail is the listed record');

  // Alpha, streamed, reasoning, with a cache breakpoint: the first call writes the prefix, the second reads it.
  const thinker = await h.createKey({ name: 'thinker' });
  for (let i = 0; i < 2; i++) {
    const res = await post(h, thinker.key, '/chat/completions', {
      model: 'alpha-sonnet-4.6',
      stream: true,
      reasoning_effort: 'high',
      messages: [
        { role: 'system', content: [{ type: 'text', text: 'You answer in one short line.', cache_control: EPHEMERAL }] },
        { role: 'user', content: `question ${i}` },
      ],
    });
    t.equal(res.status, 200);
  }
  const streamed = await listed(t, h, thinker.id, 2);
  const totals = (await usage(h, thinker.key)).totals;
  const sum = (pick: (r: Json) => number): number => streamed.reduce((total, r) => total + pick(r), 0);
  const sameCounts: Array<[string, number]> = [
    ['input_tokens', totals.prompt_tokens],
    ['output_tokens', totals.completion_tokens],
    ['cache_read_tokens', totals.cached_tokens],
    ['cache_write_tokens', totals.cache_write_tokens],
  ];
  for (const [field, ledger] of sameCounts)
    t.equal(
      sum((r) => r['usage'][field]),
      ledger,
      `${field}: the ledger’s`,
    );
  t.ok(totals.cached_tokens > 0 && totals.cache_write_tokens > 0, 'the prompt cache was written and read');
  t.equal(
    sum((r) => parseUsd(r['cost_usd'])),
    parseUsd(totals.cost_usd),
    'cost: the ledger’s, exact',
  );
  t.equal(
    sum((r) => parseUsd(r['upstream_cost_usd'])),
    parseUsd(totals.upstream_cost_usd),
    'upstream cost: the ledger’s, exact',
  );
  for (const r of streamed) {
    t.match(r, { model: 'alpha-sonnet-4.6', stream: true, usage: { reasoning_tokens: 6 } }, 'the reasoning count');
    t.ok(r['ttft_ms'] > 0 && r['ttft_ms'] <= r['latency_ms'], 'a stream’s time to first token, within its latency');
  }
  t.ok(streamed[0]?.['id'] > streamed[1]?.['id'], 'newest first');

  // Nothing of the body or the key in a record, nor in the database.
  const everything = JSON.stringify((await requests(h, '?limit=500')).body);
  for (const secret of [plain.key, thinker.key, 'zebra-marmalade', 'question 1', 'one short line']) {
    t.notOk(everything.includes(secret), `no "${secret.slice(0, 12)}…" in a record`);
  }
  const database = await h.databaseText();
  t.notOk(database.includes(plain.key), 'no key in the database');
});

t.test('refusals of a known key are listed (400, 403, 404, 429), a keyless or wrong-key call is not', async (t) => {
  const h = await startHarness(t);
  const key = await h.createKey({ name: 'refused', models: ['gamma-5.4'], rpm_limit: 1 });
  const cases: Array<[Json, number]> = [
    [{ model: 'gamma-5.4', messages: 'not a list' }, 400],
    [{ model: 'alpha-sonnet-4.6', messages: [{ role: 'user', content: 'hi' }] }, 403],
    [{ model: 'no-such-model-x', messages: [{ role: 'user', content: 'hi' }] }, 404],
    [{ model: 'gamma-5.4', messages: [{ role: 'user', content: 'hi' }] }, 200],
    [{ model: 'gamma-5.4', messages: [{ role: 'user', content: 'hi' }] }, 429],
  ];
  for (const [body, status] of cases) t.equal((await post(h, key.key, '/chat/completions', body)).status, status, `a ${status}`);
  t.equal((await post(h, 'sl-not-a-key-at-all-0000', '/chat/completions', cases[3]?.[0] ?? {})).status, 401);
  await fetch(`${h.baseURL}/chat/completions`, { method: 'POST', body: '{}' });
  // The Gemini format names the model in its path.
  const gemini = await fetch(`${h.origin}/v1beta/models/no-such-gemini:generateContent`, {
    method: 'POST',
    headers: { 'x-goog-api-key': key.key, 'content-type': 'application/json' },
    body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
  });
  t.equal(gemini.status, 404);
  const broke = await h.createKey({ name: 'broke', monthly_ceiling_usd: '0.00' });
  t.equal((await post(h, broke.key, '/chat/completions', { model: 'gamma-5.4', messages: [{ role: 'user', content: 'hi' }] })).status, 402, 'a 402');
  t.match(await listed(t, h, broke.id, 1), [{ status: 402, outcome: 'rejected', model: 'gamma-5.4', attempts: 0 }], 'the 402 listed');
  const records = await listed(t, h, key.id, 6);
  t.same(
    records.map((r) => [r['status'], r['outcome'], r['model'], r['attempts'], r['cost_usd']]),
    [
      [404, 'rejected', 'no-such-gemini', 0, '0.00'],
      [429, 'rejected', 'gamma-5.4', 0, '0.00'],
      [200, 'ok', 'gamma-5.4', 1, records[2]?.['cost_usd']],
      [404, 'rejected', 'no-such-model-x', 0, '0.00'],
      [403, 'rejected', 'alpha-sonnet-4.6', 0, '0.00'],
      [400, 'rejected', 'gamma-5.4', 0, '0.00'],
    ],
    'each refusal, newest first, with the model as named',
  );
  t.not(records[2]?.['cost_usd'], '0.00', 'the answered call between them cost something');
  await sleep(300);
  t.equal(((await requests(h, '')).body['data'] as Json[]).length, 7, 'no record of a keyless or wrong-key call');
});

t.test('filters and cursor paging through the API; its validation errors', async (t) => {
  const h = await startHarness(t);
  const a = await h.createKey({ name: 'a' });
  const b = await h.createKey({ name: 'b' });
  for (let i = 0; i < 5; i++) await post(h, a.key, '/chat/completions', { model: 'gamma-5.4', messages: [{ role: 'user', content: `hi ${i}` }] });
  await post(h, b.key, '/messages', { model: 'alpha-haiku-4.5', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });
  await post(h, b.key, '/chat/completions', { model: 'nope-model', messages: [] });
  await listed(t, h, a.id, 5);
  await listed(t, h, b.id, 2);

  const pages: Json[][] = [];
  let cursor = '';
  for (let i = 0; i < 5; i++) {
    const { body } = await requests(h, `?key_id=${a.id}&limit=2${cursor}`);
    pages.push(body['data'] as Json[]);
    t.equal(body['has_more'], i < 2, `page ${i + 1}: has_more`);
    if (!body['next_cursor']) break;
    cursor = `&cursor=${String(body['next_cursor'])}`;
  }
  t.same(
    pages.map((page) => page.length),
    [2, 2, 1],
    'three pages of 2, 2, 1',
  );
  const ids = pages.flat().map((r) => String(r['id']));
  t.same(ids, [...ids].sort().reverse(), 'newest first across pages');
  t.equal(new Set(ids).size, 5, 'none twice');

  const only = async (query: string): Promise<Json[]> => (await requests(h, query)).body['data'] as Json[];
  t.same(
    (await only('?endpoint=messages')).map((r) => r['model']),
    ['alpha-haiku-4.5'],
    'by endpoint',
  );
  t.same((await only('?model=gamma-5.4')).length, 5, 'by model');
  t.same(
    (await only('?status=4xx')).map((r) => r['model']),
    ['nope-model'],
    'by status class',
  );
  t.same(
    (await only(`?status=200&key_id=${b.id}`)).map((r) => r['endpoint']),
    ['messages'],
    'by code and key',
  );
  t.same(await only('?until=2000-01-01T00:00:00Z'), [], 'nothing before 2000');
  t.same((await only(`?since=${Date.now() - 60_000}`)).length, 7, 'since, as epoch ms');

  for (const [query, param] of [
    ['?status=600', 'status'],
    ['?status=2x', 'status'],
    ['?limit=0', 'limit'],
    ['?limit=501', 'limit'],
    ['?since=yesterday', 'since'],
    ['?since=2026-11-15T00:00:00Z&until=2026-11-14', 'until'],
    ['?cursor=bm9wZQ', 'cursor'],
    ['?key_id=a&key_id=b', 'key_id'],
    ['?keyid=a', 'keyid'],
  ] as const) {
    const { status, body } = await requests(h, query);
    t.equal(status, 400, `${query}: 400`);
    t.equal(body['error']?.param, param, `${query}: names ${param}`);
  }
  const missing = await h.admin('GET', `/requests/${ID_PREFIX}nope`);
  t.equal(missing.status, 404);
  const anonymous = await fetch(`${h.origin}/admin/v1/requests`);
  t.equal(anonymous.status, 401, 'the admin token is required');
});

t.test('records older than the retention (30 days) are pruned after a write', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const log = await h.store.extend(REQUEST_LOG_STATE);
  const old = (daysAgo: number): RequestRecord => logRecord(clock.now() - daysAgo * 86_400_000, { keyId: 'key_old' });
  const [gone, kept] = [old(31), old(29)];
  await log.append([gone, kept]);
  const key = await h.createKey({ name: 'now' });
  await post(h, key.key, '/chat/completions', { model: 'gamma-5.4', messages: [{ role: 'user', content: 'hi' }] });
  await listed(t, h, key.id, 1);
  for (let i = 0; i < 50 && (await log.get(gone.id)) !== null; i++) await sleep(20);
  t.equal(await log.get(gone.id), null, 'the 31-day-old record is pruned');
  t.same(await log.get(kept.id), kept, 'the 29-day-old one is kept');
});

t.test('a call’s trace id is recorded, and linked when a trace_url is configured', async (t) => {
  const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
  const tracer = definePlugin({
    name: 'trace-stub',
    setup: () => ({
      onHeaders(call) {
        call.traceId = TRACE;
      },
    }),
  });
  const h = await startHarness(t, {
    registered: { 'trace-stub': tracer },
    configure: (config) => {
      config.plugins.unshift({ name: 'trace-stub', enabled: true, config: {} });
      const entry = config.plugins.find((p) => p.name === 'request-log');
      if (entry) entry.config = { trace_url: 'https://jaeger.example/trace/{trace_id}' };
    },
  });
  const key = await h.createKey({ name: 'traced' });
  await post(h, key.key, '/chat/completions', { model: 'gamma-5.4', messages: [{ role: 'user', content: 'hi' }] });
  const [record] = await listed(t, h, key.id, 1);
  t.match(record, { trace_id: TRACE, trace_url: `https://jaeger.example/trace/${TRACE}` });
});

t.test('a trace_url without {trace_id} stops the start', async (t) => {
  await t.rejects(
    startHarness(t, {
      configure: (config) => {
        const entry = config.plugins.find((p) => p.name === 'request-log');
        if (entry) entry.config = { trace_url: 'https://jaeger.example/trace/' };
      },
    }),
    /trace_url must be an http\(s\) URL with \{trace_id\}/,
  );
});

t.test('records still queued at shutdown are written before the store closes', async (t) => {
  const appended: RequestRecord[] = [];
  // The log's sub-store, its append noted: what reached the store before it closed.
  const noting = (store: Store): Store =>
    Object.create(store, {
      extend: {
        value: async <T extends object>(extension: StoreExtension<T>): Promise<T> => {
          const opened = await store.extend(extension);
          if (extension.name !== 'request-log') return opened;
          const log = opened as RequestLogStore;
          const append = async (records: readonly RequestRecord[]): Promise<void> => {
            await log.append(records);
            appended.push(...records);
          };
          return Object.create(log, { append: { value: append } }) as T;
        },
      },
    }) as Store;
  const h = await startHarness(t, {
    wrapStore: noting,
    configure: (config) => {
      const entry = config.plugins.find((p) => p.name === 'request-log');
      if (entry) entry.config = { flush_ms: 1000 };
    },
  });
  const key = await h.createKey({ name: 'last' });
  t.equal((await post(h, key.key, '/chat/completions', { model: 'gamma-5.4', messages: [{ role: 'user', content: 'hi' }] })).status, 200);
  t.same(appended, [], 'still queued (flush_ms 1000)');
  await h.gateway.close();
  t.match(appended, [{ keyId: key.id, status: 200 }], 'written at shutdown');
});

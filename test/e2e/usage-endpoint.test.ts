import t from 'tap';
import { readDoc } from '../helpers/doc-facts.js';
import { FakeClock, startHarness } from '../helpers/harness.js';
import { ask, usage, type UsageBody } from '../helpers/usage.js';

/** `GET /v1/usage` (and the admin route that answers the same body): its shape, window, cycle, and isolation between keys. */

t.test('GET /v1/usage: shape, the 30-day window, the cycle; the admin route answers the same body', async (t) => {
  const clock = new FakeClock(Date.parse('2026-11-15T12:00:00Z'));
  const h = await startHarness(t, { clock });
  const { id, key } = await h.createKey({ monthly_ceiling_usd: '1.50' });
  const client = h.client(key);
  await client.chat.completions.create({ model: 'gamma-5.4', max_tokens: 4, messages: ask('one two three') });
  clock.advance(10 * 24 * 3600 * 1000); // 2026-11-25T12:00Z
  await client.chat.completions.create({ model: 'gamma-5-2', max_tokens: 5, messages: ask('four five') });
  await client.chat.completions.create({ model: 'gamma-5.2', max_tokens: 5, messages: ask('six') });

  const body = await usage(h, key);
  t.same(body, {
    object: 'usage',
    key_id: id,
    period: { start: '2026-10-27T00:00:00.000Z', end: '2026-11-25T12:00:00.000Z', days: 30 },
    // Charged: 4 × 2500 + 10 × 2000 nano-dollars. Upstream: gamma-5.4 4 × 5000 + 3 × 625 = 21 875;
    // gamma-5.2 10 × 4000 + (2 + 1) × 500 = 41 500; together 63 375.
    totals: {
      requests: 3,
      cached_requests: 0,
      prompt_tokens: 6,
      completion_tokens: 14,
      total_tokens: 20,
      cached_tokens: 0,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
      reasoning_tokens: 0,
      cost_usd: '0.00003',
      upstream_cost_usd: '0.000063375',
      list_cost_usd: '0.000063375',
      savings_usd: '0.000033375',
    },
    cycle: {
      start: '2026-11-01T00:00:00.000Z',
      end: '2026-12-01T00:00:00.000Z',
      ceiling_usd: '1.50',
      spent_usd: '0.00003',
      reserved_usd: '0.00',
      remaining_usd: '1.49997',
      upstream_limit_usd: null,
      upstream_spent_usd: '0.000063375',
      upstream_reserved_usd: '0.00',
      upstream_remaining_usd: null,
    },
    by_endpoint: [
      {
        endpoint: 'chat.completions',
        requests: 3,
        cached_requests: 0,
        prompt_tokens: 6,
        completion_tokens: 14,
        total_tokens: 20,
        cached_tokens: 0,
        cache_write_tokens: 0,
        cache_write_1h_tokens: 0,
        reasoning_tokens: 0,
        cost_usd: '0.00003',
        upstream_cost_usd: '0.000063375',
        list_cost_usd: '0.000063375',
        savings_usd: '0.000033375',
      },
    ],
    data: [
      {
        date: '2026-11-15',
        model: 'gamma-5.4',
        requests: 1,
        cached_requests: 0,
        prompt_tokens: 3,
        completion_tokens: 4,
        total_tokens: 7,
        cached_tokens: 0,
        cache_write_tokens: 0,
        cache_write_1h_tokens: 0,
        reasoning_tokens: 0,
        cost_usd: '0.00001',
        upstream_cost_usd: '0.000021875',
        list_cost_usd: '0.000021875',
        savings_usd: '0.000011875',
      },
      {
        date: '2026-11-25',
        model: 'gamma-5.2',
        requests: 2,
        cached_requests: 0,
        prompt_tokens: 3,
        completion_tokens: 10,
        total_tokens: 13,
        cached_tokens: 0,
        cache_write_tokens: 0,
        cache_write_1h_tokens: 0,
        reasoning_tokens: 0,
        cost_usd: '0.00002',
        upstream_cost_usd: '0.0000415',
        list_cost_usd: '0.0000415',
        savings_usd: '0.0000215',
      },
    ],
  });
  const documented = /```json\n(\{\n {2}"object": "usage",[\s\S]*?)\n```/.exec(readDoc('money.md'))?.[1] ?? '{}';
  t.same(JSON.parse(documented), { ...body, key_id: 'key_…' }, 'docs/money.md shows this very body');
  const admin = await h.admin('GET', `/keys/${id}/usage`);
  t.equal(admin.status, 200);
  t.same(await admin.json(), body, 'the admin route answers the same body');

  clock.advance(20 * 24 * 3600 * 1000); // 2026-12-15T12:00Z: the window starts 2026-11-16
  const later = await usage(h, key);
  t.equal(later.period.start, '2026-11-16T00:00:00.000Z');
  t.same(
    later.data.map((row) => row.date),
    ['2026-11-25'],
    'days older than 30 have left the window',
  );
  t.equal(later.totals.requests, 2);
  t.equal(later.cycle['start'], '2026-12-01T00:00:00.000Z');
  t.equal(later.cycle['spent_usd'], '0.00', 'a new cycle');

  const missing = await h.admin('GET', '/keys/key_nope/usage');
  t.equal(missing.status, 404);
  t.match(await missing.json(), { error: { type: 'not_found', param: 'id' } });
  const noAdmin = await fetch(`${h.origin}/admin/v1/keys/${id}/usage`, { headers: { authorization: `Bearer ${key}` } });
  t.equal(noAdmin.status, 401, 'a key is not an admin token');
  const noKey = await fetch(`${h.baseURL}/usage`);
  t.equal(noKey.status, 401);
  t.equal(((await noKey.json()) as { error: { code: string } }).error.code, 'invalid_api_key');
});

t.test('usage is isolated between keys', async (t) => {
  const h = await startHarness(t, { clock: new FakeClock() });
  const a = await h.createKey({ name: 'a' });
  const b = await h.createKey({ name: 'b' });
  const idle = await h.createKey({ name: 'idle' });
  for (let i = 0; i < 3; i++) await h.client(a.key).chat.completions.create({ model: 'gamma-5.4', max_tokens: 2, messages: ask('a') });
  await h.client(b.key).chat.completions.create({ model: 'gamma-5.1-code', max_tokens: 7, messages: ask('b') });

  const ua = await usage(h, a.key);
  const ub = await usage(h, b.key);
  const ui = await usage(h, idle.key);
  t.same([ua.key_id, ub.key_id, ui.key_id], [a.id, b.id, idle.id]);
  t.same(
    ua.data.map((row) => [row.model, row.requests, row.completion_tokens]),
    [['gamma-5.4', 3, 6]],
  );
  t.same(
    ub.data.map((row) => [row.model, row.requests, row.completion_tokens]),
    [['gamma-5.1-code', 1, 7]],
  );
  t.equal(ub.totals.cost_usd, '0.0000105', '7 × 1500 nano-dollars');
  t.same(ui.data, []);
  t.same(ui.totals, {
    requests: 0,
    cached_requests: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    total_tokens: 0,
    cached_tokens: 0,
    cache_write_tokens: 0,
    cache_write_1h_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: '0.00',
    upstream_cost_usd: '0.00',
    list_cost_usd: '0.00',
    savings_usd: '0.00',
  });
  t.equal(ui.cycle['spent_usd'], '0.00');
  const adminB = (await (await h.admin('GET', `/keys/${b.id}/usage`)).json()) as UsageBody;
  t.same(adminB, ub);
});

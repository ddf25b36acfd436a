import t from 'tap';
import { FakeClock, startHarness } from '../helpers/harness.js';

t.test('admin usage for the dashboard: every key summed, per-key spend and last call, rotation grace on the key', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const a = await h.createKey({ name: 'a', monthly_ceiling_usd: '1.00' });
  const b = await h.createKey({ name: 'b' });
  const idle = await h.createKey({ name: 'idle' });
  // 40 tokens of gamma-5.4 = $0.0001 charged, 40 × 5000 + 2 prompt tokens × 625 = 201 250 nano-dollars upstream;
  // 40 of gamma-5.2 = $0.00008 charged, 40 × 4000 + 2 × 500 = 161 000 upstream.
  await h.client(a.key).chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x [[sim:tokens=40]]' }] });
  clock.advance(60_000);
  await h.client(b.key).chat.completions.create({ model: 'gamma-5.2', messages: [{ role: 'user', content: 'x [[sim:tokens=40]]' }] });
  await h.client(b.key).chat.completions.create({ model: 'gamma-5.2', messages: [{ role: 'user', content: 'x [[sim:tokens=40]]' }] });

  const all = (await (await h.admin('GET', '/usage')).json()) as Record<string, any>;
  t.equal(all['key_id'], null);
  t.same(all['totals'], {
    requests: 3,
    cached_requests: 0,
    prompt_tokens: 6,
    completion_tokens: 120,
    total_tokens: 126,
    cached_tokens: 0,
    cache_write_tokens: 0,
    cache_write_1h_tokens: 0,
    reasoning_tokens: 0,
    cost_usd: '0.00026',
    upstream_cost_usd: '0.00052325',
    list_cost_usd: '0.00052325',
    savings_usd: '0.00026325',
  });
  t.equal(all['cycle'].spent_usd, '0.00026');
  t.equal(all['cycle'].ceiling_usd, null);
  t.same(
    all['data'].map((row: Record<string, unknown>) => [row['model'], row['requests']]),
    [
      ['gamma-5.2', 2],
      ['gamma-5.4', 1],
    ],
  );

  const keys = (await (await h.admin('GET', '/usage/keys')).json()) as { data: Array<Record<string, unknown>> };
  const byId = (x: Record<string, unknown>, y: Record<string, unknown>) => String(x['key_id']).localeCompare(String(y['key_id']));
  t.same(
    [...keys.data].sort(byId),
    [
      {
        key_id: a.id,
        cycle_spent_usd: '0.0001',
        cycle_reserved_usd: '0.00',
        cycle_upstream_spent_usd: '0.00020125',
        cycle_upstream_reserved_usd: '0.00',
        last_used_at: '2026-11-15T12:00:00.000Z',
      },
      {
        key_id: b.id,
        cycle_spent_usd: '0.00016',
        cycle_reserved_usd: '0.00',
        cycle_upstream_spent_usd: '0.000322',
        cycle_upstream_reserved_usd: '0.00',
        last_used_at: '2026-11-15T12:01:00.000Z',
      },
      {
        key_id: idle.id,
        cycle_spent_usd: '0.00',
        cycle_reserved_usd: '0.00',
        cycle_upstream_spent_usd: '0.00',
        cycle_upstream_reserved_usd: '0.00',
        last_used_at: null,
      },
    ].sort(byId),
  );

  const before = (await (await h.admin('GET', `/keys/${a.id}`)).json()) as Record<string, unknown>;
  t.equal(before['previous_valid_until'], null, 'never rotated: no grace');
  await h.admin('POST', `/keys/${a.id}/rotate`);
  const during = (await (await h.admin('GET', `/keys/${a.id}`)).json()) as Record<string, unknown>;
  t.equal(during['previous_valid_until'], '2026-11-16T12:01:00.000Z', 'the old value works for 24 h');
  await h.admin('POST', `/keys/${b.id}/rotate`);
  await h.admin('POST', `/keys/${b.id}/revoke`);
  const revoked = (await (await h.admin('GET', `/keys/${b.id}`)).json()) as Record<string, unknown>;
  t.equal(revoked['previous_valid_until'], null, 'a revoked key has no grace: no value of it works');
  clock.advance(24 * 3600_000);
  const after = (await (await h.admin('GET', `/keys/${a.id}`)).json()) as Record<string, unknown>;
  t.equal(after['previous_valid_until'], null, 'grace over');
});

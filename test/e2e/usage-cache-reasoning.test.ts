import t from 'tap';
import { FakeClock, startHarness } from '../helpers/harness.js';
import { ledgerRow } from '../helpers/store-fixtures.js';

/**
 * The usage report's cache and reasoning figures (docs/money.md; the dashboard's usage page
 * draws them, docs/dashboard.md): prompt tokens read from and written to the vendors' caches,
 * reasoning tokens, and the calls answered from the response cache, per key, per model and in
 * total — from ledger rows that carry them, and from a call whose model reasoned.
 */

interface Report {
  totals: Record<string, unknown>;
  data: Array<Record<string, unknown>>;
}
const FIGURES = [
  'requests',
  'cached_requests',
  'prompt_tokens',
  'cached_tokens',
  'cache_write_tokens',
  'cache_write_1h_tokens',
  'completion_tokens',
  'reasoning_tokens',
] as const;
const figures = (sums: Record<string, unknown>): unknown[] => FIGURES.map((name) => sums[name]);

t.test('ledger rows with cache and reasoning tokens: the report sums each, per key and per model', async (t) => {
  const h = await startHarness(t, { clock: new FakeClock() });
  const [a, b] = [await h.createKey({ name: 'a' }), await h.createKey({ name: 'b' })];
  const rows = [
    ledgerRow(a.id, {
      model: 'alpha-sonnet-4.6',
      family: 'alpha',
      promptTokens: 100,
      cacheReadTokens: 60,
      cacheWriteTokens: 30,
      cacheWrite1hTokens: 20,
      completionTokens: 40,
      reasoningTokens: 25,
    }),
    ledgerRow(a.id, { model: 'alpha-sonnet-4.6', family: 'alpha', promptTokens: 100, cacheReadTokens: 90, completionTokens: 10, cached: true }),
    ledgerRow(a.id, { model: 'gamma-5.4', promptTokens: 50, completionTokens: 20, reasoningTokens: 12 }),
    ledgerRow(b.id, { model: 'gamma-5.4', promptTokens: 10, cacheWriteTokens: 10, completionTokens: 5 }),
  ];
  for (const row of rows) await h.store.ledger.record(row, null);

  const ofA = (await (await h.admin('GET', `/keys/${a.id}/usage`)).json()) as Report;
  t.same(
    figures(ofA.totals),
    [3, 1, 250, 150, 30, 20, 70, 37],
    'key a: 3 calls, 1 from the response cache, 150 of 250 prompt tokens read from the cache, 30 written (20 of them for an hour), 37 reasoning',
  );
  t.same(
    ofA.data.map((row) => [row['model'], ...figures(row)]),
    [
      ['alpha-sonnet-4.6', 2, 1, 200, 150, 30, 20, 50, 25],
      ['gamma-5.4', 1, 0, 50, 0, 0, 0, 20, 12],
    ],
    'per model',
  );
  const all = (await (await h.admin('GET', '/usage')).json()) as Report;
  t.same(figures(all.totals), [4, 1, 260, 150, 40, 20, 75, 37], 'every key');
  const ofB = (await (await h.admin('GET', `/keys/${b.id}/usage`)).json()) as Report;
  t.same(figures(ofB.totals), [1, 0, 10, 0, 10, 0, 5, 0], 'key b');
});

t.test("a call whose model reasoned: its reasoning tokens reach the ledger and the report as the caller's usage said", async (t) => {
  const h = await startHarness(t, { clock: new FakeClock() });
  const { id, key } = await h.createKey();
  const reply = await h
    .client(key)
    .chat.completions.create({ model: 'beta-3-flash', reasoning_effort: 'low', messages: [{ role: 'user', content: 'Think first.' }] });
  const reasoning = reply.usage?.completion_tokens_details?.reasoning_tokens ?? 0;
  t.ok(reasoning > 0, `the model reasoned (${reasoning} tokens)`);
  const report = (await (await h.admin('GET', `/keys/${id}/usage`)).json()) as Report;
  t.equal(report.totals['reasoning_tokens'], reasoning);
  t.equal(report.totals['completion_tokens'], reply.usage?.completion_tokens, 'a part of the completion tokens');
});

import t from 'tap';
import { launchBrowser } from '../helpers/browser.js';
import { dashboardHarness } from '../helpers/dashboard-harness.js';
import { ADMIN_TOKEN } from '../helpers/harness.js';
import { ledgerRow } from '../helpers/store-fixtures.js';

/**
 * The dashboard's usage page in a real browser (docs/dashboard.md): a key's cache hit rate,
 * cache writes, reasoning tokens and answers from the response cache, in its figures and per
 * model, with the hit rate's definition on the page — the usage report's numbers.
 */

t.test('the usage page shows the cache and reasoning figures of the ledger, per key and per model', async (t) => {
  const h = await dashboardHarness(t);
  const { id, key } = await h.createKey({ name: 'cachey' });
  const other = await h.createKey({ name: 'other' });
  const now = Date.now();
  const rows = [
    ledgerRow(id, {
      admittedAt: now,
      model: 'alpha-sonnet-4.6',
      family: 'alpha',
      promptTokens: 200,
      cacheReadTokens: 150,
      cacheWriteTokens: 40,
      completionTokens: 60,
      reasoningTokens: 1_500,
    }),
    ledgerRow(id, { admittedAt: now, model: 'alpha-sonnet-4.6', family: 'alpha', promptTokens: 200, cacheReadTokens: 50, completionTokens: 20, cached: true }),
    ledgerRow(id, { admittedAt: now, model: 'gamma-5.4', promptTokens: 100, completionTokens: 10 }),
    ledgerRow(other.id, { admittedAt: now, model: 'gamma-5.4', promptTokens: 500, cacheReadTokens: 500, completionTokens: 10 }),
  ];
  for (const row of rows) await h.store.ledger.record(row, null);

  const browser = await launchBrowser(t);
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(`${h.origin}/dashboard`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  await page.getByRole('link', { name: 'Usage' }).click();

  await page.getByTestId('usage-requests').filter({ hasText: '4' }).waitFor();
  t.equal(await page.getByTestId('usage-cache-hit-rate').textContent(), '70.0 %', 'all keys: 700 of 1 000 prompt tokens read from the cache');

  await page.locator('#usage-key').selectOption({ label: `cachey (${key.slice(0, 7)}…${key.slice(-4)})` });
  await page.getByTestId('usage-requests').filter({ hasText: '3' }).waitFor();
  t.equal(await page.getByTestId('usage-cache-hit-rate').textContent(), '40.0 %', 'the key: 200 of its 500 prompt tokens');
  t.equal(await page.getByTestId('usage-cache-writes').textContent(), '40');
  t.equal(await page.getByTestId('usage-reasoning').textContent(), '1,500');
  t.equal(await page.getByTestId('usage-cached-requests').textContent(), '1', 'one call answered from the response cache');
  const cells = async (model: string): Promise<string[]> => page.locator(`tr[data-model="${model}"] td`).allTextContents();
  t.same(
    (await cells('alpha-sonnet-4.6')).slice(1, 8),
    ['2', '400', '80', '50.0 %', '40', '1,500', '1'],
    'per model: requests, prompt, completion, hit rate, writes, reasoning, from the response cache',
  );
  t.same((await cells('gamma-5.4')).slice(4, 8), ['0.0 %', '0', '0', '0']);
  t.match(
    await page.locator('#usage-definitions').textContent(),
    /Cache hit rate: the prompt tokens the vendors read from their prompt caches, over all prompt tokens/,
  );
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { RequestRecord } from '../../plugins/request-log/store/log-store.js';
import { REQUEST_LOG_STATE } from '../../plugins/request-log/store/state.js';
import { buildDashboard } from '../../src/dashboard/build.js';
import { launchBrowser } from '../helpers/browser.js';
import { logRecord } from '../helpers/request-records.js';
import { ADMIN_TOKEN, startHarness } from '../helpers/harness.js';

/**
 * The dashboard's Requests page in a real browser (docs/dashboard.md, docs/request-log.md): the
 * log newest first, filters that land in the URL and a linked view that applies them, paging by
 * cursor older and back, and the detail panel with every field and the trace linked.
 */

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const PAGE_ROWS = 50;

t.test('the Requests page: filters in the URL, paging by cursor, the detail panel', async (t) => {
  const assets = mkdtempSync(join(tmpdir(), 'dashboard-assets-'));
  t.teardown(() => rmSync(assets, { recursive: true, force: true }));
  await buildDashboard(assets);
  const h = await startHarness(t, {
    configure: (config) => {
      for (const entry of config.plugins) {
        if (entry.name === 'dashboard') entry.config = { assets_dir: assets };
        if (entry.name === 'request-log') entry.config = { trace_url: 'https://jaeger.example/trace/{trace_id}' };
      }
    },
  });
  const caller = await h.createKey({ name: 'caller' });
  const bulk = await h.createKey({ name: 'bulk' });
  // Live calls: a success and a 404 of an unknown model.
  const post = (model: string): Promise<Response> =>
    fetch(`${h.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${caller.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi [[sim:tokens=7]]' }] }),
    });
  t.equal((await post('gamma-5.4')).status, 200);
  t.equal((await post('no-such-model')).status, 404);
  // 120 records of another key through the store's own write path, a minute apart, the newest traced.
  const log = await h.store.extend(REQUEST_LOG_STATE);
  const start = Date.now() - 3 * 3_600_000;
  const records: RequestRecord[] = Array.from({ length: 120 }, (_, i) =>
    logRecord(start + i * 60_000, {
      keyId: bulk.id,
      model: 'alpha-sonnet-4.6',
      endpoint: 'messages',
      stream: true,
      latencyMs: 100 + i,
      ttftMs: 20.5,
      inputTokens: i,
      outputTokens: 2 * i,
      cacheReadTokens: 3,
      cacheWriteTokens: 4,
      reasoningTokens: 5,
      chargedNanos: 1_500_000 + i,
      upstreamNanos: 3_000_000 + i,
      traceId: i === 119 ? TRACE : null,
    }),
  );
  await log.append(records);

  const browser = await launchBrowser(t);
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const problems: string[] = [];
  // From the signed-in page on, as in dashboard.test.ts (the first load's favicon is a 404 the console reports).
  let watching = false;
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (watching && message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  await page.goto(`${h.origin}/dashboard`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
  watching = true;

  // The live calls, filtered by status class through the form: the URL carries the filter.
  await page.getByRole('link', { name: 'Requests' }).click();
  await page.getByRole('heading', { name: 'Requests' }).waitFor();
  await page.locator('tbody tr').first().waitFor();
  await page.locator('#requests-key').selectOption({ label: `caller (${caller.id})` });
  await page.locator('#requests-status').selectOption('4xx');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/#\/requests\?key_id=key_\w+&status=4xx$/);
  await page.locator('tbody tr', { hasText: 'no-such-model' }).waitFor();
  t.equal(await page.locator('tbody tr').count(), 1, 'only the 404');
  t.match(await page.locator('tbody tr').textContent(), /404/);

  // A linked view: the bulk key's records, newest first, 50 a page; older, older, then back.
  await page.goto(`${h.origin}/dashboard#/requests?key_id=${bulk.id}&model=alpha-sonnet-4.6`);
  const rows = page.locator('tbody tr');
  const firstId = async (): Promise<string | null> => rows.first().getAttribute('data-id');
  await page.locator(`tbody tr[data-id="${records[119]?.id}"]`).waitFor();
  t.equal(await rows.count(), PAGE_ROWS, 'a page of 50');
  t.equal(await page.locator('#requests-model').inputValue(), 'alpha-sonnet-4.6', 'the form shows the linked filters');
  const seen: string[] = [];
  const collect = async (): Promise<void> => {
    seen.push(...((await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')))) as string[]));
  };
  await collect();
  await page.getByRole('button', { name: 'Older' }).click();
  await page.locator(`tbody tr[data-id="${records[69]?.id}"]`).waitFor();
  await collect();
  await page.getByRole('button', { name: 'Older' }).click();
  await page.locator(`tbody tr[data-id="${records[19]?.id}"]`).waitFor();
  t.equal(await rows.count(), 20, 'the last page: the 20 oldest');
  await collect();
  t.ok(await page.getByRole('button', { name: 'Older' }).isDisabled(), 'no page older than the last');
  t.same(seen, records.map((r) => r.id).reverse(), 'every record once, newest first, across the pages');
  await page.getByRole('button', { name: 'Newer' }).click();
  await page.locator(`tbody tr[data-id="${records[69]?.id}"]`).waitFor();
  t.equal(await firstId(), records[69]?.id, 'newer goes back a page');

  // The detail panel of the newest: every field, the trace linked.
  await page.getByRole('button', { name: 'Older' }).click();
  await page.getByRole('button', { name: 'Newer' }).click();
  await page.getByRole('button', { name: 'Newer' }).click();
  await page.locator(`tbody tr[data-id="${records[119]?.id}"]`).waitFor();
  await page
    .locator(`tbody tr[data-id="${records[119]?.id}"]`)
    .getByRole('button', { name: /Details/ })
    .click();
  const detail = page.getByTestId('request-detail');
  await detail.waitFor();
  const text = await detail.textContent();
  for (const shown of [
    'Time to first token20.5 ms',
    'Cache read tokens3',
    'Cache write tokens4',
    'Reasoning tokens5',
    'Cost$0.001500119',
    'Upstream cost$0.003000119',
    'Deploymentdefault',
  ]) {
    t.match(text, shown, `shows ${shown}`);
  }
  t.equal(await detail.getByRole('link', { name: TRACE }).getAttribute('href'), `https://jaeger.example/trace/${TRACE}`, 'the trace linked by the trace_url');
  await page.screenshot({ path: join(tmpdir(), 'requests-1280.png'), fullPage: true });

  // On a phone: the filters wrap, the table scrolls inside its frame, the page never sideways.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const small = await phone.newPage();
  await small.goto(`${h.origin}/dashboard`);
  await small.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await small.getByRole('button', { name: 'Sign in' }).click();
  await small.getByRole('heading', { name: 'API keys' }).waitFor();
  await small.getByRole('link', { name: 'Requests' }).click();
  await small.locator('tbody tr').first().waitFor();
  const overflow = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  t.ok(overflow <= 1, `the Requests page does not scroll sideways at 390 px (${overflow})`);
  await phone.close();
  t.same(problems, [], 'no script errors and no CSP violations in the console');
});

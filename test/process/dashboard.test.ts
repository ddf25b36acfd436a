import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import OpenAI from 'openai';
import type { Page } from 'playwright-core';
import t from 'tap';
import { dashboardHarness } from '../helpers/dashboard-harness.js';
import { launchBrowser } from '../helpers/browser.js';
import { ADMIN_TOKEN, type Harness } from '../helpers/harness.js';

/** Screenshots land here (git-ignored). */
const SHOTS = join('test-output', 'screenshots');

/** The admin API's view of the one key whose name contains `name`. */
async function keyNamed(h: Harness, name: string): Promise<Record<string, unknown>> {
  const { data } = (await (await h.admin('GET', '/keys')).json()) as { data: Array<Record<string, unknown>> };
  const key = data.find((k) => String(k['name']).includes(name));
  if (!key) throw new Error(`no key named ${name}`);
  return key;
}

async function signIn(page: Page, origin: string): Promise<void> {
  await page.goto(`${origin}/dashboard`);
  await page.getByLabel('Admin token').fill(ADMIN_TOKEN);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'API keys' }).waitFor();
}

t.test('the dashboard in a real browser: keys, usage, allowlist, ceiling, rotation, revocation, import, escaping, audit', async (t) => {
  mkdirSync(SHOTS, { recursive: true });
  const h = await dashboardHarness(t);
  const browser = await launchBrowser(t);
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const problems: string[] = [];
  let watching = false;
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (watching && message.type() === 'error') problems.push(`console: ${message.text()}`);
  });

  const headers = (await fetch(`${h.origin}/dashboard`)).headers;
  t.match(headers.get('content-security-policy'), /default-src 'none'; script-src 'self'; style-src 'self'/);
  t.equal(headers.get('x-content-type-options'), 'nosniff');
  t.equal(headers.get('referrer-policy'), 'no-referrer');

  // Signing in with a wrong token is refused; the right one is kept in session storage only.
  await page.goto(`${h.origin}/dashboard`);
  await page.getByLabel('Admin token').fill('wrong-token-000000000');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByText('That admin token was refused.').waitFor();
  await signIn(page, h.origin);
  watching = true; // the refused sign-in above logs its 401; from here on the console must stay clean
  t.equal(await page.evaluate(() => sessionStorage.getItem('gateway-admin-token')), ADMIN_TOKEN);
  t.same(await context.cookies(), [], 'no cookie is set');
  t.notMatch(page.url(), ADMIN_TOKEN, 'the token is never in a URL');

  // Create a key limited to two gamma models; the value is shown once.
  await page.getByRole('button', { name: 'Create key' }).click();
  const dialog = page.getByRole('dialog');
  await dialog.getByLabel('Name').fill('<script>alert(1)</script> bot');
  await dialog.getByLabel('Every model (including ones added later)').uncheck();
  await dialog.getByLabel('gamma-5.4', { exact: true }).check();
  await dialog.getByLabel('gamma-5.2', { exact: true }).check();
  await dialog.getByLabel(/Monthly spend ceiling/).fill('25.00');
  await dialog.getByLabel(/Monthly upstream cost limit/).fill('40.00');
  await dialog.getByLabel(/Rate cap/).fill('lots');
  watching = false; // the browser logs the refused request's 400
  await dialog.getByRole('button', { name: 'Create' }).click();
  await dialog.getByText(/rpm_limit/).waitFor();
  watching = true;
  t.pass('a rate cap that is not a whole number is refused by the admin API, named under the form');
  await dialog.getByLabel(/Rate cap/).fill('600');
  await dialog.getByLabel(/Response cache/).fill('300');
  await dialog.getByRole('button', { name: 'Create' }).click();
  await page.getByText('You will not see this again.').waitFor();
  const key = await page.getByTestId('secret-value').inputValue();
  t.match(key, /^sl-[A-Za-z0-9]{32}$/);
  t.match(
    await keyNamed(h, 'bot'),
    { monthly_ceiling_usd: '25.00', monthly_upstream_limit_usd: '40.00', rpm_limit: 600, cache_ttl_s: 300 },
    'the form sets the limits and the cache ttl',
  );
  await page.screenshot({ path: join(SHOTS, 'key-created-1280.png') });
  await page.getByRole('button', { name: 'Done' }).click();

  // The name with markup is shown as text, not run.
  const row = page.locator('tr', { hasText: 'bot' });
  t.equal(await row.locator('td.name').textContent(), '<script>alert(1)</script> bot', 'markup in a name is text');
  t.equal(await page.locator('td.name script').count(), 0, 'no script element was created');
  t.notMatch(await row.textContent(), key.slice(3, -4), 'the table shows the key truncated');

  // The key works through the official client; its usage appears with the right cost.
  const client = new OpenAI({ apiKey: key, baseURL: h.baseURL, maxRetries: 0 });
  const ok = await client.chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'hi [[sim:tokens=40]]' }] });
  t.equal(ok.model, 'gamma-5.4');
  await page.getByRole('link', { name: 'Usage' }).click();
  await page.locator('#usage-key').selectOption({ label: `<script>alert(1)</script> bot (${key.slice(0, 7)}…${key.slice(-4)})` });
  await page.getByTestId('usage-requests').filter({ hasText: '1' }).waitFor();
  t.equal(await page.getByTestId('usage-charged').textContent(), '$0.0001', '40 tokens × $2.50 per 1M = $0.0001, as GET /v1/usage says');
  t.equal(
    await page.getByTestId('usage-savings').textContent(),
    '$0.00010125',
    'list $5.00 per 1M output and $0.625 per 1M input (2 prompt words, charged nothing): saved $0.00010125',
  );
  t.equal(await page.locator('tr[data-model="gamma-5.4"] td').nth(3).textContent(), '40');
  t.equal(await page.locator('tr[data-model="gamma-5.4"] td').nth(4).textContent(), '0.0 %', 'the cache hit rate: no prompt token of it read from a cache');
  const v1 = (await (await fetch(`${h.baseURL}/usage`, { headers: { authorization: `Bearer ${key}` } })).json()) as { totals: { cost_usd: string } };
  t.equal(v1.totals.cost_usd, '0.0001', 'the same figure from the API');
  await page.screenshot({ path: join(SHOTS, 'usage-1280.png'), fullPage: true });
  await page.getByRole('link', { name: 'Keys' }).click();
  await row.getByText('$0.0001 / $25.00').waitFor();

  // Change the allowlist in the dashboard: gamma-5.4 is no longer allowed → 403.
  await row.getByRole('button', { name: /^Edit/ }).click();
  await page.getByRole('dialog').getByLabel('gamma-5.4', { exact: true }).uncheck();
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
  await page.getByRole('dialog').waitFor({ state: 'detached' });
  const forbidden = await client.chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
  t.equal((forbidden as { status?: number }).status, 403, 'the allowlist change takes effect');
  // The dialog closes before the table reloads, so wait for the row to show the new allowlist.
  await row
    .locator('td')
    .nth(3)
    .filter({ hasText: /^gamma-5\.2$/ })
    .waitFor();
  t.equal(await row.locator('td').nth(3).textContent(), 'gamma-5.2', 'the allowlist shows the change');

  // A tiny ceiling (what was already spent) → 402.
  await row.getByRole('button', { name: /^Edit/ }).click();
  await page
    .getByRole('dialog')
    .getByLabel(/Monthly spend ceiling/)
    .fill('0.0001');
  await page.getByRole('dialog').getByRole('button', { name: 'Save' }).click();
  await page.getByRole('dialog').waitFor({ state: 'detached' });
  const capped = await client.chat.completions.create({ model: 'gamma-5.2', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
  t.equal((capped as { status?: number }).status, 402, 'the ceiling is reached');
  t.equal((capped as { code?: string }).code, 'monthly_cap_exceeded');

  // Rotate: the new value is shown once with the old one's end of grace; usage and ceiling carry over.
  await row.getByRole('button', { name: /^Rotate/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Rotate key' }).click();
  await page.getByText(/The old value works until \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC\./).waitFor();
  const rotated = await page.getByTestId('secret-value').inputValue();
  t.match(rotated, /^sl-[A-Za-z0-9]{32}$/);
  t.not(rotated, key);
  await page.getByRole('button', { name: 'Done' }).click();
  await row.getByText('In grace').waitFor();
  const rotatedClient = new OpenAI({ apiKey: rotated, baseURL: h.baseURL, maxRetries: 0 });
  const stillCapped = await rotatedClient.chat.completions.create({ model: 'gamma-5.2', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
  t.equal((stillCapped as { status?: number }).status, 402, 'the new value shares the ledger identity: same spend, same ceiling');
  await row.getByRole('button', { name: /^Edit/ }).click();
  const edit = page.getByRole('dialog');
  await edit.getByLabel(/Monthly spend ceiling/).fill('25.00');
  t.equal(await edit.getByLabel(/Monthly upstream cost limit/).inputValue(), '40.00', 'the edit form shows the upstream cost limit');
  t.equal(await edit.getByLabel(/Rate cap/).inputValue(), '600', 'and the rate cap');
  t.equal(await edit.getByLabel(/Response cache/).inputValue(), '300', 'and the response cache ttl');
  await edit.getByLabel(/Rate cap/).fill('');
  await edit.getByRole('button', { name: 'Save' }).click();
  await edit.waitFor({ state: 'detached' });
  t.match(
    await keyNamed(h, 'bot'),
    { monthly_ceiling_usd: '25.00', monthly_upstream_limit_usd: '40.00', rpm_limit: null },
    'an emptied rate cap is cleared (the default applies)',
  );
  t.equal(
    (await rotatedClient.chat.completions.create({ model: 'gamma-5.2', messages: [{ role: 'user', content: 'hi' }] })).model,
    'gamma-5.2',
    'the new value works',
  );
  t.equal(
    (await client.chat.completions.create({ model: 'gamma-5.2', messages: [{ role: 'user', content: 'hi' }] })).model,
    'gamma-5.2',
    'the old value works in its grace',
  );

  // Import a qua- key with a CSV history and see the projected savings.
  await page.getByRole('link', { name: 'Imports' }).click();
  await page.getByLabel('Key (qua-, sk- or or-)').fill('qua-previousgateway0042');
  await page.getByText('This is a key of another gateway.').waitFor();
  await page.getByLabel('Label (optional)').fill('old gateway');
  const csv = 'date,model,input_tokens,output_tokens,cost\n2026-10-01,alpha-opus-4-6,100,1000000,15.00\n2026-10-10,<img src=x onerror=alert(2)>,1,1,0.01\n';
  await page.getByLabel(/Usage history export/).setInputFiles({ name: 'history.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
  await page.getByRole('button', { name: 'Import' }).click();
  const card = page.locator('article.import', { hasText: 'old gateway' });
  await card.waitFor();
  t.equal(await card.getByTestId('monthly-savings').textContent(), '$22.50', '1M output tokens × ($15.00 − $7.50) over 10 days → $22.50 a month');
  t.equal(await card.locator('.unknown-models').textContent(), '<img src=x onerror=alert(2)>', 'an imported model ID is shown as text');
  t.equal(await page.locator('article.import img').count(), 0);
  await card.getByText('Assumptions').click();
  await card.getByText(/A month is 30 days/).waitFor();
  await page.screenshot({ path: join(SHOTS, 'imports-1280.png'), fullPage: true });

  // Revoke (with confirmation) → 401 for the key.
  await page.getByRole('link', { name: 'Keys' }).click();
  await row.getByRole('button', { name: /^Revoke/ }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
  await row.getByText('Revoked').waitFor();
  // A few more keys, so the keys page (and its screenshot in docs/) shows every state.
  await h.createKey({ name: 'production backend', models: ['alpha-sonnet-4.6', 'gamma-5.4'], monthly_ceiling_usd: '500.00' });
  const staging = await h.createKey({ name: 'staging', monthly_ceiling_usd: '20.00' });
  await h.admin('POST', `/keys/${staging.id}/rotate`);
  await h.createKey({ name: 'nightly evals', models: ['beta-3-flash'], expires_at: '2027-01-01T00:00:00Z' });
  await page.reload();
  await page.getByText('production backend').waitFor();
  for (const revokedClient of [client, rotatedClient]) {
    const revoked = await revokedClient.chat.completions.create({ model: 'gamma-5.2', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
    t.equal((revoked as { status?: number }).status, 401, 'revoked: both values refused');
  }
  await page.screenshot({ path: join(SHOTS, 'keys-1280.png'), fullPage: true });

  // The audit page lists what was done.
  await page.getByRole('link', { name: 'Audit' }).click();
  await page.getByRole('heading', { name: 'Audit trail' }).waitFor();
  await page.locator('tbody tr').first().waitFor();
  const audit = await page.locator('tbody').textContent();
  t.match(audit, /POST \/keys\b/);
  t.match(audit, /PATCH \/keys\/key_/);
  t.match(audit, /POST \/imports/);
  t.match(audit, /\/revoke/);

  // The deployments page lists each family's deployments and their health.
  await page.getByRole('link', { name: 'Deployments' }).click();
  await page.getByRole('heading', { name: 'Upstream deployments' }).waitFor();
  await page.locator('tbody tr').first().waitFor();
  const deployments = await page.locator('tbody').textContent();
  t.match(deployments, /gamma\s*default\s*http:\/\/127\.0\.0\.1:\d+/, 'the single form is the deployment named default');
  t.notMatch(deployments, /upstream-secret-key/, 'never a credential');

  // On a phone.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true });
  const small = await phone.newPage();
  await signIn(small, h.origin);
  await small.screenshot({ path: join(SHOTS, 'keys-390.png'), fullPage: true });
  const overflow = await small.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  t.ok(overflow <= 1, 'the page does not scroll sideways at 390 px (tables scroll inside their frame)');
  await small.getByRole('link', { name: 'Imports' }).click();
  await small.locator('article.import').first().waitFor();
  await small.screenshot({ path: join(SHOTS, 'imports-390.png'), fullPage: true });
  await phone.close();

  t.same(problems, [], 'no script errors and no CSP violations in the console');
});

t.test('the dashboard on a port of its own serves the page and the APIs it calls', async (t) => {
  const h = await dashboardHarness(t, { port: 0 });
  const line = h.logs.map((l) => JSON.parse(l) as { msg: string; origin?: string }).find((l) => l.msg === 'dashboard listening on its own port');
  const side = line?.origin as string;
  t.match(side, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.not(side, h.origin);
  const page = await fetch(`${side}/dashboard`);
  t.equal(page.status, 200);
  t.match(page.headers.get('content-security-policy'), /connect-src 'self'/);
  t.equal((await fetch(`${h.origin}/dashboard`)).status, 404, 'not on the gateway port any more');
  const keys = await fetch(`${side}/admin/v1/keys`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
  t.equal(keys.status, 200, "the admin API answers on the dashboard's port");
  t.equal((await fetch(`${side}/admin/v1/keys`)).status, 401, 'behind the same token');
  t.equal(((await (await fetch(`${side}/v1/models`)).json()) as { data: unknown[] }).data.length, 11);
  t.equal((await fetch(`${side}/v1/chat/completions`, { method: 'POST' })).status, 404, 'the API for callers is not there');

  const browser = await launchBrowser(t);
  const tab = await browser.newPage();
  await signIn(tab, side);
  t.ok(await tab.getByRole('button', { name: 'Create key' }).isVisible(), 'signed in through the side port');
});

import t from 'tap';
import { PHONE_DAYS } from '../../plugins/status/history-page.js';
import { STATUS_STATE } from '../../plugins/status/store/state.js';
import { launchBrowser } from '../helpers/browser.js';
import { FakeClock, startHarness } from '../helpers/harness.js';
import { statusSample } from '../helpers/status-sample.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

t.test('a person opens /status after traffic: every model with its percentiles, and the incident', async (t) => {
  const h = await startHarness(t, { simulatedFamilies: ['gamma'] });
  const { key } = await h.createKey();
  const client = h.client(key);
  // Every model of all three families but one, which stays without traffic.
  const idle = 'gamma-5.1-code-max';
  const served = h.catalogue.models.filter((m) => m.id !== idle);
  for (const model of served) {
    for (let i = 0; i < 3; i++) {
      if (i === 2) {
        const stream = await client.chat.completions.create({ model: model.id, stream: true, messages: [{ role: 'user', content: 'x' }] });
        for await (const _chunk of stream);
      } else {
        await client.chat.completions.create({ model: model.id, messages: [{ role: 'user', content: 'x' }] });
      }
    }
  }
  const title = 'Gamma <fleet> maintenance & upgrade';
  const opened = await h.admin('POST', '/incidents', { title, impact: 'minor', models: ['gamma-5.4'], message: 'Slower replies while we upgrade.' });
  t.equal(opened.status, 201);

  const browser = await launchBrowser(t);
  const page = await browser.newPage();
  const response = await page.goto(`${h.origin}/status`);
  t.equal(response?.status(), 200);
  t.equal(await page.title(), 'Status — model gateway');
  t.equal(await page.locator('#overall').innerText(), 'Degraded performance', 'the open incident shows in the overall state');
  t.match(await page.locator('[data-simulated="gamma"]').innerText(), /gamma family is answered by the gateway's built-in simulator/);
  t.equal(await page.locator('[data-simulated]').count(), 1, 'a banner only for the simulated family');

  const rows = page.locator('#models tbody tr');
  t.equal(await rows.count(), h.catalogue.models.length, 'one row per model of the catalogue');
  for (const model of h.catalogue.models) {
    const row = page.locator(`#models tr[data-model="${model.id}"]`);
    t.match(await row.locator('th').innerText(), model.id);
    const cells = await Promise.all(['p50', 'p95', 'p99', 'uptime-24h', 'requests'].map((name) => row.locator(`td.${name}`).innerText()));
    if (model.id !== idle) {
      for (const value of cells.slice(0, 3)) t.match(value, /^\d+(\.\d+)? (ms|s)$/, `${model.id}: percentile ${value}`);
      t.equal(cells[3], '100.00 %', `${model.id}: uptime 24 h`);
      t.equal(cells[4], '3', `${model.id}: requests`);
    } else {
      t.same(cells, ['—', '—', '—', 'no data', '0'], `${model.id}: no traffic yet`);
    }
  }
  t.equal(await page.locator('#models tr[data-model="gamma-5.4"] td.state').innerText(), 'Degraded performance');

  const incident = page.locator('#incidents article.incident').first();
  t.equal(await incident.locator('h3').innerText(), title, 'the title is shown as text, not markup');
  t.match(await incident.innerText(), /investigating/);
  t.match(await incident.innerText(), /Slower replies while we upgrade\./);
  t.equal(await page.locator('fleet').count(), 0, 'no element was injected');
});

t.test('the 90-day history on a phone and on a desktop, without JavaScript: bars, sparklines, an incident on its day', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const status = await h.store.extend(STATUS_STATE);
  const today = Math.floor(clock.ms / DAY) * DAY;
  // Some past days of gamma-5.4: a bad one 10 days ago, good ones in between.
  await status.record([statusSample('gamma-5.4', today - 10 * DAY, 100, 40), statusSample('gamma-5.4', today - 50 * DAY, 500, 0)]);
  const { key } = await h.createKey();
  await h.client(key).chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] });
  // An incident of gamma-5.4 five days ago, resolved the same day.
  clock.advance(-5 * DAY);
  const opened = (await (await h.admin('POST', '/incidents', { title: 'Gamma hiccup', impact: 'major', models: ['gamma-5.4'] })).json()) as { id: string };
  clock.advance(HOUR);
  t.equal((await h.admin('PATCH', `/incidents/${opened.id}`, { status: 'resolved' })).status, 200);
  clock.advance(5 * DAY - HOUR);
  const incidentDay = new Date(today - 5 * DAY).toISOString().slice(0, 10);

  const browser = await launchBrowser(t);
  for (const { name, viewport, shown } of [
    { name: 'phone', viewport: { width: 375, height: 740 }, shown: PHONE_DAYS },
    { name: 'desktop', viewport: { width: 1280, height: 800 }, shown: 90 },
  ]) {
    const context = await browser.newContext({ viewport, javaScriptEnabled: false });
    const page = await context.newPage();
    t.equal((await page.goto(`${h.origin}/status`))?.status(), 200);
    const overflow = await page.evaluate(() => ({ scroll: document.scrollingElement?.scrollWidth ?? Infinity, inner: window.innerWidth }));
    t.ok(overflow.scroll <= overflow.inner, `${name}: nothing overflows horizontally (${overflow.scroll} ≤ ${overflow.inner})`);
    for (const model of ['all', ...h.catalogue.models.map((m) => m.id)]) {
      const bars = page.locator(`[data-history="${model}"] ol.days li`);
      t.equal(await bars.count(), 90, `${name}, ${model}: 90 bars in the page`);
      const widths = await bars.evaluateAll((items) => items.map((item) => item.getBoundingClientRect().width));
      t.equal(widths.filter((w) => w > 0).length, shown, `${name}, ${model}: ${shown} drawn`);
      t.ok(
        widths.slice(-shown).every((w) => w >= 2),
        `${name}, ${model}: the latest days drawn, each at least 2 px wide`,
      );
    }
    for (const model of h.catalogue.models) {
      const box = await page.locator(`[data-history="${model.id}"] figure.spark svg`).boundingBox();
      t.ok(box && box.width > 100 && box.height > 20, `${name}, ${model.id}: the sparkline drawn (${box?.width}×${box?.height})`);
    }
    t.ok(await page.locator('[data-history="gamma-5.4"] figure.spark polyline.p50, [data-history="gamma-5.4"] figure.spark circle.p50').first().isVisible());

    const marked = page.locator(`#day-${incidentDay}-gamma-5\\.4`);
    t.match(await marked.getAttribute('class'), /\binc-major\b/, `${name}: the incident's day marked`);
    t.match(await marked.getAttribute('aria-label'), `${incidentDay}: no data; incident (major): Gamma hiccup`);
    const marker = await marked.evaluate((bar) => getComputedStyle(bar, '::after').backgroundColor);
    t.equal(marker, 'rgb(209, 100, 13)', `${name}: in the major impact's colour`);
    const bad = page.locator(`#day-${new Date(today - 10 * DAY).toISOString().slice(0, 10)}-gamma-5\\.4`);
    t.equal(await bad.evaluate((bar) => getComputedStyle(bar).backgroundColor), 'rgb(207, 34, 46)', `${name}: a day at 60 % in red`);

    // The incident list links to its day, and the link lands on the bar.
    await page.locator(`[data-incident="${opened.id}"] .on-timeline a`).click();
    t.match(page.url(), `#day-${incidentDay}-gamma-5.4`);
    t.equal(await marked.evaluate((bar) => bar.matches(':target')), true, `${name}: the link's target is the bar`);
    await context.close();
  }
});

import t from 'tap';
import { launchBrowser } from '../helpers/browser.js';
import { startHarness } from '../helpers/harness.js';

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

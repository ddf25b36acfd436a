import t from 'tap';
import type { StatusReport } from '../../plugins/status/report.js';
import { STATUS_STATE } from '../../plugins/status/store/state.js';
import { FakeClock, raw, startHarness, type Harness } from '../helpers/harness.js';
import { sdk } from '../helpers/messages-client.js';

/**
 * The status page names the endpoint: each model's 24 h requests by endpoint name in
 * /status.json (`requests_24h_by_endpoint`) and on /status, from calls of /v1/chat/completions,
 * /v1/embeddings, /v1/responses and /v1/messages through the running gateway.
 */

const DAY = 24 * 3_600_000;

const statusJson = async (h: Harness): Promise<StatusReport> => (await fetch(`${h.origin}/status.json`)).json() as Promise<StatusReport>;

const responses = (h: Harness, key: string, model: string) =>
  raw(h.origin, 'POST', '/v1/responses', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, input: 'Say hi [[sim:tokens=2]]' }),
  });

t.test("/status.json and /status: each model's requests of the last 24 h by endpoint", async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const { key } = await h.createKey();
  const client = h.client(key);
  const messages = sdk(h, key);
  const say = [{ role: 'user' as const, content: 'Hello [[sim:tokens=2]]' }];

  for (let i = 0; i < 2; i++) await client.chat.completions.create({ model: 'gamma-5.4', messages: say });
  t.equal((await responses(h, key, 'gamma-5.4')).status, 200);
  await messages.messages.create({ model: 'gamma-5.4', max_tokens: 16, messages: say });
  await client.chat.completions.create({ model: 'beta-3-flash', messages: say });
  await client.embeddings.create({ model: 'beta-3-flash', input: 'alpha' });
  await messages.messages.create({ model: 'alpha-sonnet-4.6', max_tokens: 16, messages: say });
  t.equal((await responses(h, 'sl-not-a-key', 'gamma-5.4')).status, 401, 'a refusal never reaches a model');

  const report = await statusJson(h);
  const of = (id: string) => report.models.find((m) => m.id === id);
  t.same(of('gamma-5.4')?.requests_24h_by_endpoint, { 'chat.completions': 2, messages: 1, responses: 1 });
  t.same(of('beta-3-flash')?.requests_24h_by_endpoint, { 'chat.completions': 1, embeddings: 1 });
  t.same(of('alpha-sonnet-4.6')?.requests_24h_by_endpoint, { messages: 1 });
  t.same(of('gamma-5.2')?.requests_24h_by_endpoint, {}, 'only endpoints with calls: none without traffic');
  for (const model of report.models) {
    const summed = Object.values(model.requests_24h_by_endpoint).reduce((a, b) => a + b, 0);
    t.equal(summed, model.requests_24h, `${model.id}: the breakdown adds up to requests_24h`);
  }

  const page = await (await fetch(`${h.origin}/status`)).text();
  const cell = (id: string): string | undefined =>
    new RegExp(`<tr data-model="${id.replace(/\./g, '\\.')}">[\\s\\S]*?<td class="endpoints">([^<]*)</td>`).exec(page)?.[1];
  t.equal(cell('gamma-5.4'), 'chat.completions 2 · messages 1 · responses 1', 'a compact cell per model');
  t.equal(cell('alpha-sonnet-4.6'), 'messages 1');
  t.equal(cell('gamma-5.2'), '—', 'a dash without traffic');
  t.match(page, '<th scope="col">By endpoint</th>');

  // A day and more later the minutes have left the 24 h window, then are pruned.
  clock.advance(DAY + 60_000);
  t.same((await statusJson(h)).models.find((m) => m.id === 'gamma-5.4')?.requests_24h_by_endpoint, {}, 'out of the window');
  clock.advance(DAY);
  await statusJson(h);
  t.same(await (await h.store.extend(STATUS_STATE)).endpointTotals(0), [], 'pruned with the minute rollups');
});

import t from 'tap';
import { AggregatorUsageSimulator } from '../../src/simulators/aggregator-usage-sim.js';
import { raw, startHarness } from '../helpers/harness.js';

t.test('import API: paste, upload, project; imported keys never authenticate', async (t) => {
  const aggregator = new AggregatorUsageSimulator();
  await aggregator.listen();
  t.teardown(() => aggregator.close());
  const h = await startHarness(t, { env: { IMPORT_AGGREGATOR_BASE_URL: aggregator.url } });
  const quaKey = 'qua-9f8e7d6c5b4a3210ffee';
  const csv = 'date,model,input_tokens,output_tokens,cost\n2026-10-01,alpha-opus-4-6,100,1000000,15.00\n2026-10-10,legacy-x,1,1,0.01\n';

  const created = await h.admin('POST', '/imports', { key: quaKey, label: 'old gateway', history: { format: 'csv', content: csv } });
  t.equal(created.status, 201);
  const body = (await created.json()) as Record<string, any>;
  t.equal(body['kind'], 'gateway');
  t.equal(body['kind_description'], 'another gateway');
  t.equal(body['key'], 'qua-…ffee');
  t.same(body['history'], { rows: 2, from: '2026-10-01', to: '2026-10-10', days: 10, unknown_models: ['legacy-x'] });
  t.equal(body['projection'].savings_usd, '7.50');
  t.equal(body['projection'].monthly_savings_usd, '22.50');
  t.equal(body['projection'].paid_elsewhere_usd, '15.01');
  t.ok(body['projection'].assumptions.length >= 3, 'the assumptions travel with the figures');
  t.notMatch(JSON.stringify(body), quaKey.slice(4, -4), 'the key is not echoed');

  const detail = (await (await h.admin('GET', `/imports/${String(body['id'])}`)).json()) as Record<string, any>;
  t.equal(detail['daily'].length, 2);
  t.equal(detail['daily'][0].model_id, 'alpha-opus-4.6');
  t.equal(detail['daily'][1].model_id, null);

  // A bad upload changes nothing: the earlier history stays whole.
  const bad = await h.admin('POST', '/imports', {
    key: quaKey,
    history: { format: 'csv', content: 'date,model,input_tokens,output_tokens,cost\n2026-10-02,gamma-5.4,1,x,0\n' },
  });
  t.equal(bad.status, 400);
  const badBody = (await bad.json()) as { error: { param: string; message: string } };
  t.equal(badBody.error.param, 'history');
  t.match(badBody.error.message, /line 2: output_tokens/);
  const still = (await (await h.admin('GET', `/imports/${String(body['id'])}`)).json()) as Record<string, any>;
  t.equal(still['daily'].length, 2, 'nothing half-imported');

  // The same key again replaces its history (200, same import).
  const again = await h.admin('POST', '/imports', {
    key: quaKey,
    history: { format: 'json', content: '[{"date":"2026-10-03","model":"gamma-5.4","input_tokens":1,"output_tokens":10,"cost":"0"}]' },
  });
  t.equal(again.status, 200);
  t.equal(((await again.json()) as Record<string, any>)['id'], body['id']);

  // The aggregator connector fetches live with the pasted key (used once, never stored).
  const orKey = 'or-v1-livefetch000111';
  aggregator.activity.set(orKey, [{ date: '2026-11-01', model: 'gamma-5.2', prompt_tokens: 10, completion_tokens: 500_000, usage: 2.5 }]);
  const fetched = await h.admin('POST', '/imports', { key: orKey, fetch: true });
  t.equal(fetched.status, 201);
  const fetchedBody = (await fetched.json()) as Record<string, any>;
  t.equal(fetchedBody['kind'], 'aggregator');
  t.equal(fetchedBody['connector'], true);
  t.equal(fetchedBody['projection'].savings_usd, '1.00', '500k tokens × ($4.00 − $2.00) per 1M');
  t.same(aggregator.seenKeys, [orKey]);
  const refused = await h.admin('POST', '/imports', { key: 'or-v1-unknownkey0000', fetch: true });
  t.equal(refused.status, 400);
  const noConnector = await h.admin('POST', '/imports', { key: 'sk-vendor-0000111122', fetch: true });
  t.equal(noConnector.status, 400);
  t.match(((await noConnector.json()) as { error: { message: string } }).error.message, /No connector is configured for vendor keys/);

  for (const [key, param] of [
    ['sl-abcdefghijklmnopqrstuvwxyz012345', 'key'],
    ['hello', 'key'],
  ] as const) {
    const res = await h.admin('POST', '/imports', { key });
    t.equal(res.status, 400);
    t.equal(((await res.json()) as { error: { param: string } }).error.param, param);
  }

  const list = (await (await h.admin('GET', '/imports')).json()) as { data: unknown[] };
  t.equal(list.data.length, 2);

  const dbText = await h.databaseText();
  t.notMatch(dbText, quaKey, 'the raw imported key is not in the database');
  t.notMatch(dbText, orKey);

  const asBearer = await raw(h.origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${quaKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] }),
  });
  t.equal(asBearer.status, 401, 'an imported key never authenticates at /v1');
  t.match(asBearer.json().error.message, /dashboard/);

  const removed = await h.admin('DELETE', `/imports/${String(body['id'])}`);
  t.equal(removed.status, 200);
  t.equal((await h.admin('GET', `/imports/${String(body['id'])}`)).status, 404);
});

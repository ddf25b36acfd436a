import t from 'tap';
import { ADMIN_TOKEN, raw, startHarness } from '../helpers/harness.js';

t.test('admin API: create, list, get, patch, revoke', async (t) => {
  const h = await startHarness(t);

  const created = await h.admin('POST', '/keys', {
    name: 'ci bot',
    models: ['Gamma-5-4', 'gamma-5.2', 'gamma-5.4'],
    monthly_ceiling_usd: '50.00',
    expires_at: '2030-01-01T00:00:00Z',
  });
  t.equal(created.status, 201);
  const key = (await created.json()) as Record<string, unknown>;
  t.match(key['key'], /^sl-[A-Za-z0-9]{32}$/, 'the full key, once');
  t.match(key['id'], /^key_/);
  t.same(key['models'], ['gamma-5.4', 'gamma-5.2'], 'model IDs normalised and de-duplicated');
  t.equal(key['monthly_ceiling_usd'], '50.00');
  t.equal(key['status'], 'active');
  t.equal(key['expires_at'], '2030-01-01T00:00:00.000Z');
  const full = key['key'] as string;
  const truncated = `${full.slice(0, 7)}…${full.slice(-4)}`;

  const list = (await (await h.admin('GET', '/keys')).json()) as { data: Array<Record<string, unknown>> };
  t.equal(list.data.length, 1);
  t.equal(list.data[0]?.['key'], truncated, 'listed truncated');
  t.notMatch(JSON.stringify(list), full);

  const one = (await (await h.admin('GET', `/keys/${String(key['id'])}`)).json()) as Record<string, unknown>;
  t.equal(one['key'], truncated);
  t.equal(one['name'], 'ci bot');

  const patched = await h.admin('PATCH', `/keys/${String(key['id'])}`, { name: 'renamed', models: null, monthly_ceiling_usd: '0.0015' });
  t.equal(patched.status, 200);
  const after = (await patched.json()) as Record<string, unknown>;
  t.equal(after['name'], 'renamed');
  t.equal(after['models'], null, 'null allowlist = every model');
  t.equal(after['monthly_ceiling_usd'], '0.0015', 'exact decimal amounts');

  const revoked = await h.admin('POST', `/keys/${String(key['id'])}/revoke`);
  t.equal(((await revoked.json()) as Record<string, unknown>)['status'], 'revoked');

  t.notMatch(await h.databaseText(), full.slice(3), 'the raw key is nowhere in the database');
});

t.test('admin API: monthly_upstream_limit_usd on create, get, list, patch (null clears), rotation; bad amounts refused', async (t) => {
  const h = await startHarness(t);
  const plain = (await (await h.admin('POST', '/keys', { name: 'plain' })).json()) as Record<string, unknown>;
  t.equal(plain['monthly_upstream_limit_usd'], null, 'none unless set');

  const created = await h.admin('POST', '/keys', { name: 'bounded', monthly_ceiling_usd: '0.001', monthly_upstream_limit_usd: '2.500000001' });
  t.equal(created.status, 201);
  const key = (await created.json()) as Record<string, unknown>;
  const id = String(key['id']);
  t.same([key['monthly_ceiling_usd'], key['monthly_upstream_limit_usd']], ['0.001', '2.500000001'], 'both limits, exact to the nano-dollar');
  t.equal((await h.store.keys.get(id))?.monthlyUpstreamLimitNanos, 2_500_000_001, 'stored in nano-dollars');
  const one = (await (await h.admin('GET', `/keys/${id}`)).json()) as Record<string, unknown>;
  t.equal(one['monthly_upstream_limit_usd'], '2.500000001');
  const list = (await (await h.admin('GET', '/keys')).json()) as { data: Array<Record<string, unknown>> };
  t.same(
    list.data.map((k) => k['monthly_upstream_limit_usd']),
    [null, '2.500000001'],
  );

  const patched = (await (await h.admin('PATCH', `/keys/${id}`, { monthly_upstream_limit_usd: '0.50' })).json()) as Record<string, unknown>;
  t.same([patched['monthly_ceiling_usd'], patched['monthly_upstream_limit_usd']], ['0.001', '0.50'], 'a patch of one limit leaves the other');
  const rotated = (await (await h.admin('POST', `/keys/${id}/rotate`)).json()) as Record<string, unknown>;
  t.equal(rotated['monthly_upstream_limit_usd'], '0.50', 'a rotation keeps it');
  const cleared = (await (await h.admin('PATCH', `/keys/${id}`, { monthly_upstream_limit_usd: null })).json()) as Record<string, unknown>;
  t.same([cleared['monthly_ceiling_usd'], cleared['monthly_upstream_limit_usd']], ['0.001', null], 'null clears it');
  t.equal((await h.store.keys.get(id))?.monthlyUpstreamLimitNanos, null);

  for (const bad of ['fifty', '-1.00', '1.0000000001', 3]) {
    const res = await h.admin('PATCH', `/keys/${id}`, { monthly_upstream_limit_usd: bad });
    const error = ((await res.json()) as { error: { param: string | null; message: string } }).error;
    t.same([res.status, error.param], [400, 'monthly_upstream_limit_usd'], `${JSON.stringify(bad)} refused, naming the field`);
  }
  const refused = await h.admin('POST', '/keys', { name: 'x', monthly_upstream_limit_usd: 'lots' });
  t.match((await refused.json()) as object, {
    error: { param: 'monthly_upstream_limit_usd', message: /monthly_upstream_limit_usd must be a decimal dollar amount/ },
  });
});

t.test('admin API refuses bad input and bad tokens in our envelope', async (t) => {
  const h = await startHarness(t);
  const bad = async (method: string, path: string, body: unknown, param: string | null, status = 400) => {
    const res = await h.admin(method, path, body);
    t.equal(res.status, status, `${method} ${path} ${JSON.stringify(body)} → ${status}`);
    const json = (await res.json()) as { error: { param: string | null; type: string } };
    t.equal(json.error.param, param, `names ${param}`);
  };
  await bad('POST', '/keys', {}, 'name');
  await bad('POST', '/keys', { name: 'x', models: ['gamma-9'] }, 'models');
  await bad('POST', '/keys', { name: 'x', models: 'gamma-5.4' }, 'models');
  await bad('POST', '/keys', { name: 'x', monthly_ceiling_usd: 'fifty' }, 'monthly_ceiling_usd');
  await bad('POST', '/keys', { name: 'x', monthly_ceiling_usd: 12 }, 'monthly_ceiling_usd');
  await bad('POST', '/keys', { name: 'x', expires_at: 'tomorrow' }, 'expires_at');
  await bad('POST', '/keys', { name: 'x', color: 'red' }, 'color');
  await bad('PATCH', '/keys/key_nope', { name: 'x' }, 'id', 404);
  await bad('POST', '/keys/key_nope/revoke', undefined, 'id', 404);

  const badJson = await raw(h.origin, 'POST', '/admin/v1/keys', { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body: '{nope' });
  t.equal(badJson.status, 400);
  t.equal(badJson.json().error.code, 'invalid_json');

  const { key } = await h.createKey();
  for (const authorization of [undefined, 'Bearer wrong-token-0123456789', `Bearer ${key}`, ADMIN_TOKEN]) {
    const res = await raw(h.origin, 'GET', '/admin/v1/keys', { headers: authorization ? { authorization } : {} });
    t.equal(res.status, 401, `admin with ${authorization?.slice(0, 10) ?? 'nothing'} → 401`);
    t.equal(res.json().error.type, 'invalid_api_key');
  }
});

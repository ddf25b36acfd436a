import t from 'tap';
import { chatBody, FakeClock, raw, startHarness } from '../helpers/harness.js';
import { pluginConfig } from '../helpers/ops.js';

t.test('per-key requests-per-minute cap: 429 with Retry-After in whole seconds', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const created = await h.admin('POST', '/keys', { name: 'capped', rpm_limit: 2 });
  t.equal(created.status, 201);
  const capped = (await created.json()) as { id: string; key: string; rpm_limit: number };
  t.equal(capped.rpm_limit, 2, 'the admin API shows the cap');
  const free = await h.createKey();
  const send = (key: string, model = 'gamma-5.4') =>
    raw(h.origin, 'POST', '/v1/chat/completions', { headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: chatBody(model) });

  t.equal((await send(capped.key)).status, 200);
  clock.advance(1000);
  t.equal((await send(capped.key)).status, 200);
  const upstreamBefore = h.gamma.requests.length;
  const limited = await send(capped.key);
  t.equal(limited.status, 429);
  t.equal(limited.headers.get('retry-after'), '59', 'until the first request of the minute leaves the window');
  t.match(limited.json(), { error: { type: 'rate_limited', code: 'rate_limit_exceeded', param: null } });
  t.match(limited.json().error.message, /limited to 2 requests per minute/);
  t.equal(h.gamma.requests.length, upstreamBefore, 'a refused request never reaches the upstream');
  t.equal((await send(free.key)).status, 200, 'other keys are untouched');

  clock.advance(58_500);
  t.equal((await send(capped.key)).headers.get('retry-after'), '1', 'rounded up to whole seconds');
  clock.advance(500);
  t.equal((await send(capped.key)).status, 200, 'admitted once the window moved on');

  // The cap can be changed or removed through the admin API.
  const patched = await h.admin('PATCH', `/keys/${capped.id}`, { rpm_limit: 10 });
  t.equal(((await patched.json()) as { rpm_limit: number }).rpm_limit, 10);
  t.equal((await send(capped.key)).status, 200);
  await h.admin('PATCH', `/keys/${capped.id}`, { rpm_limit: null });
  for (let i = 0; i < 5; i++) t.equal((await send(capped.key)).status, 200, 'no cap without a default');

  for (const bad of [-1, 1.5, '10']) {
    const res = await h.admin('PATCH', `/keys/${capped.id}`, { rpm_limit: bad });
    t.equal(res.status, 400, `rpm_limit ${JSON.stringify(bad)} is refused`);
    t.match(await res.json(), { error: { param: 'rpm_limit' } });
  }
});

t.test('a cap lowered then raised within the minute still counts every call of the minute', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const key = await h.createKey({ rpm_limit: 30 });
  const send = () =>
    raw(h.origin, 'POST', '/v1/chat/completions', {
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: chatBody('gamma-5.4'),
    });
  const admitted = async (calls: number): Promise<number> => {
    let ok = 0;
    for (let i = 0; i < calls; i++) if ((await send()).status === 200) ok++;
    return ok;
  };
  t.equal(await admitted(20), 20);
  await h.admin('PATCH', `/keys/${key.id}`, { rpm_limit: 10 });
  t.equal(await admitted(1), 0, 'lowered to 10 with 20 in the minute');
  await h.admin('PATCH', `/keys/${key.id}`, { rpm_limit: 50 });
  t.equal(await admitted(40), 30, 'raised to 50: 30 more, not 40');
});

t.test('the configured default, the 0 exemption, and the check order', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock, configure: pluginConfig('rate-limit', { default_rpm: 1 }) });
  const plain = await h.createKey({ models: ['gamma-5.4'] });
  const exempt = await h.createKey({ rpm_limit: 0 });
  const send = (key: string, model = 'gamma-5.4') =>
    raw(h.origin, 'POST', '/v1/chat/completions', { headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: chatBody(model) });

  // Refusals earlier in the chain do not use up the minute: 404 and 403 come first.
  t.equal((await send(plain.key, 'gamma-9')).status, 404);
  t.equal((await send(plain.key, 'gamma-5.2')).status, 403);
  t.equal((await send(plain.key)).status, 200, 'the default of 1 per minute applies');
  t.equal((await send(plain.key)).status, 429);
  t.equal((await send(plain.key, 'gamma-5.2')).status, 403, 'allowlist 403 before the rate cap 429');
  t.equal(
    (await raw(h.origin, 'POST', '/v1/chat/completions', { headers: { authorization: 'Bearer sl-00000000000000000000000000000000' }, body: chatBody() }))
      .status,
    401,
  );
  for (let i = 0; i < 3; i++) t.equal((await send(exempt.key)).status, 200, 'rpm_limit 0: no cap for this key');
});

t.test('with a ceiling: the take and the reservation are decided together, the rate cap first', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  // A ceiling too small for any call: every reservation is refused.
  const key = await h.createKey({ rpm_limit: 1, monthly_ceiling_usd: '0.000001' });
  const send = () =>
    raw(h.origin, 'POST', '/v1/chat/completions', {
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: chatBody('gamma-5.4'),
    });
  t.equal((await send()).status, 402, 'the take admits, the ceiling refuses');
  const second = await send();
  t.equal(second.status, 429, 'the refused reservation still counted for the cap, and the cap answers first');
  t.equal(second.headers.get('retry-after'), '60');
  clock.advance(60_000);
  t.equal((await send()).status, 402, 'a minute on, the ceiling again');
  t.equal(h.gamma.requests.length, 0, 'no call reached the upstream');
});

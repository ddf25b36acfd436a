import t from 'tap';
import { FakeClock, chatBody, raw, startHarness } from '../helpers/harness.js';

t.test('every 401 case of the contract, one by one, and the keys that pass', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const { key, id } = await h.createKey();
  const call = (headers: Record<string, string>) =>
    raw(h.origin, 'POST', '/v1/chat/completions', { headers: { 'content-type': 'application/json', ...headers }, body: chatBody() });
  const expect401 = async (headers: Record<string, string>, message: RegExp, what: string) => {
    const res = await call(headers);
    t.equal(res.status, 401, `${what} → 401`);
    t.equal(res.json().error.type, 'invalid_api_key', `${what}: type`);
    t.equal(res.json().error.code, 'invalid_api_key', `${what}: code`);
    t.match(res.json().error.message, message, `${what}: message`);
    t.notMatch(res.text, key, `${what}: no key in the body`);
  };

  await expect401({}, /No API key/, 'no Authorization');
  await expect401({ authorization: '' }, /No API key/, 'empty Authorization');
  await expect401({ authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }, /Bearer scheme/, 'Basic scheme');
  await expect401({ authorization: key }, /Bearer scheme/, 'key without scheme');
  await expect401({ 'x-api-key': key }, /x-api-key header is not accepted/, 'vendor header in place of Bearer');
  await expect401({ 'x-qua-token': 'qua-abc123' }, /x-qua-token header is not accepted/, "previous gateway's token header");
  await expect401({ authorization: 'Bearer sl-short' }, /Malformed/, 'malformed sl- key');
  await expect401({ authorization: 'Bearer hello' }, /Malformed/, 'no prefix');
  await expect401({ authorization: `Bearer sl-${'A'.repeat(32)}` }, /Invalid API key/, 'unknown key');
  await expect401({ authorization: `Bearer ${key}x` }, /Malformed/, 'key with an extra character');
  for (const [prefix, kind] of [
    ['qua-', 'another gateway'],
    ['sk-', 'an upstream model vendor'],
    ['or-', 'a routing aggregator'],
  ]) {
    await expect401({ authorization: `Bearer ${prefix}abcdef0123456789` }, new RegExp(`${kind}.*Import it in the dashboard`), `${prefix} key`);
  }

  const lower = await call({ authorization: `bearer ${key}` });
  t.equal(lower.status, 200, 'the Bearer scheme is case-insensitive');
  const upper = await call({ authorization: `BEARER ${key}` });
  t.equal(upper.status, 200);
  const caseChanged = await call({
    authorization: `Bearer ${key.slice(0, 3)}${key.slice(3).toLowerCase() === key.slice(3) ? key.slice(3).toUpperCase() : key.slice(3).toLowerCase()}`,
  });
  t.equal(caseChanged.status, 401, 'the key itself is matched exactly');

  // Expiry (injected clock).
  const expiring = await h.createKey({ expires_at: new Date(clock.now() + 60_000).toISOString() });
  t.equal((await call({ authorization: `Bearer ${expiring.key}` })).status, 200, 'before expires_at');
  clock.advance(60_000);
  await expect401({ authorization: `Bearer ${expiring.key}` }, /expired at/, 'expired key');

  // Revocation.
  const revoke = await h.admin('POST', `/keys/${id}/revoke`);
  t.equal(revoke.status, 200);
  await expect401({ authorization: `Bearer ${key}` }, /revoked/, 'revoked key');

  t.notOk(
    h.logs.some((line) => line.includes(key)),
    'no key value in any log line',
  );
});

t.test('the check order: 401 → 400 → 404 → 403', async (t) => {
  const h = await startHarness(t);
  const scoped = await h.createKey({ models: ['gamma-5.2'] });
  const post = (key: string, body: string) =>
    raw(h.origin, 'POST', '/v1/chat/completions', { headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });

  const missingModel = await post(scoped.key, JSON.stringify({ messages: [{ role: 'user', content: 'x' }] }));
  t.equal(missingModel.status, 400);
  t.equal(missingModel.json().error.param, 'model');
  const numberModel = await post(scoped.key, JSON.stringify({ model: 42, messages: [] }));
  t.equal(numberModel.status, 400);
  t.equal(numberModel.json().error.param, 'model');
  const emptyModel = await post(scoped.key, JSON.stringify({ model: '  ', messages: [{ role: 'user', content: 'x' }] }));
  t.equal(emptyModel.json().error.param, 'model');

  const missingMessages = await post(scoped.key, JSON.stringify({ model: 'nope-1' }));
  t.equal(missingMessages.status, 400, 'body 400 comes before unknown model 404');
  t.equal(missingMessages.json().error.param, 'messages');
  t.equal(missingMessages.json().error.type, 'invalid_request');
  const badRole = await post(scoped.key, JSON.stringify({ model: 'gamma-5.2', messages: [{ role: 'robot', content: 'x' }] }));
  t.equal(badRole.status, 400);
  t.equal(badRole.json().error.param, 'messages[0].role');

  for (const unknown of ['gamma-5.4-mini', 'gamma-5.5', 'alpha-opus-4.7', 'alpha-opus-4-7', 'beta-3.5-flash', 'beta-2.5-pro']) {
    const res = await post(scoped.key, chatBody(unknown));
    t.equal(res.status, 404, `${unknown} → 404`);
    t.equal(res.json().error.code, 'model_not_found');
    t.equal(res.json().error.param, 'model');
    t.match(res.json().error.message, new RegExp(`${unknown.replace(/\./g, '\\.')}.*GET /v1/models`));
  }

  const notAllowed = await post(scoped.key, chatBody('gamma-5.4'));
  t.equal(notAllowed.status, 403, 'model outside the allowlist → 403');
  t.equal(notAllowed.json().error.type, 'model_not_allowed');
  t.equal(notAllowed.json().error.code, 'model_not_allowed');
  const alias = await post(scoped.key, chatBody(' GAMMA-5-2 '));
  t.equal(alias.status, 200, 'an alias of an allowed model passes the allowlist');
  t.equal(alias.json().model, 'gamma-5.2', 'the reply names the canonical model');
});

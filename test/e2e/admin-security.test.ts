import t from 'tap';
import { ADMIN_FAILURES_PER_WINDOW } from '../../src/admin/admin-auth.js';
import { ADMIN_TOKEN, FakeClock, raw, startHarness } from '../helpers/harness.js';

t.test('every admin action is in the audit trail, by token fingerprint, never the token', async (t) => {
  const h = await startHarness(t);
  const { id } = await h.createKey({ name: 'audited' });
  await h.admin('PATCH', `/keys/${id}`, { name: 'renamed' });
  await h.admin('POST', `/keys/${id}/revoke`);
  await h.admin('POST', '/imports', { key: 'qua-0000111122223333' });
  await raw(h.origin, 'POST', '/admin/v1/keys', { headers: { authorization: 'Bearer not-the-token-000000' }, body: '{}' });
  await h.admin('GET', '/keys');
  await new Promise((r) => setTimeout(r, 50));

  const res = await h.admin('GET', '/audit');
  t.equal(res.status, 200);
  const entries = ((await res.json()) as { data: Array<{ actor: string; action: string; target: string | null; status: number; at: string }> }).data;
  const actions = entries.map((e) => `${e.action} ${e.status}`);
  t.same(
    actions,
    ['POST /keys 401', 'POST /imports 201', `POST /keys/${id}/revoke 200`, `PATCH /keys/${id} 200`, 'POST /keys 201'],
    'mutations and refusals, newest first; reads are not actions',
  );
  const admin = entries.filter((e) => e.status !== 401);
  t.ok(
    admin.every((e) => /^token:[0-9a-f]{12}$/.test(e.actor)),
    'the admin is named by a token fingerprint',
  );
  t.equal(new Set(admin.map((e) => e.actor)).size, 1);
  t.equal(entries[0]?.actor, 'unauthenticated');
  t.equal(entries[2]?.target, id);
  t.ok(entries.every((e) => !Number.isNaN(Date.parse(e.at))));
  t.notMatch(JSON.stringify(entries), ADMIN_TOKEN);
  t.equal(res.headers.get('cache-control'), 'no-store');
  t.equal(res.headers.get('x-content-type-options'), 'nosniff');
  t.equal(res.headers.get('referrer-policy'), 'no-referrer');
});

t.test('failed admin-token attempts are rate-limited per address', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const wrong = () => raw(h.origin, 'GET', '/admin/v1/keys', { headers: { authorization: 'Bearer guess-guess-guess-000' } });
  for (let i = 0; i < ADMIN_FAILURES_PER_WINDOW; i++) t.equal((await wrong()).status, 401);
  const limited = await wrong();
  t.equal(limited.status, 429, 'the next attempt is refused');
  t.equal(limited.json().error.type, 'rate_limited');
  t.equal(limited.headers.get('retry-after'), '60');
  const right = await h.admin('GET', '/keys');
  t.equal(right.status, 429, 'even the right token waits out the window from that address');
  clock.advance(60_000);
  t.equal((await h.admin('GET', '/keys')).status, 200, 'after the window the right token works');
});

t.test('behind a trusted proxy the lockout counts each client, and only the proxy may name it', async (t) => {
  const h = await startHarness(t, { env: { GATEWAY_TRUSTED_PROXIES: '127.0.0.1/32' } });
  const attempt = (client: string, token = 'guess-guess-guess-000') =>
    raw(h.origin, 'GET', '/admin/v1/keys', { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': `${client}, 127.0.0.1` } });
  for (let i = 0; i < ADMIN_FAILURES_PER_WINDOW; i++) t.equal((await attempt('203.0.113.5')).status, 401);
  t.equal((await attempt('203.0.113.5', ADMIN_TOKEN)).status, 429, 'that client is locked out, even with the right token');
  t.equal((await attempt('203.0.113.6', ADMIN_TOKEN)).status, 200, 'another client behind the same proxy is not');
  t.equal((await attempt('198.51.100.1, 203.0.113.5', ADMIN_TOKEN)).status, 429, 'what the client writes to the left does not get it out');
  const res = await h.admin('GET', '/audit');
  const entries = ((await res.json()) as { data: Array<{ action: string; status: number }> }).data;
  t.equal(entries.filter((e) => e.status === 429).length, 1, 'one lockout row for the window');
  t.match(entries.find((e) => e.status === 429)?.action, /locked out: 203\.0\.113\.5 presented 10 wrong tokens/);
});

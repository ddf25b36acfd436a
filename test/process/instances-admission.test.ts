import t from 'tap';
import { ADMIN_FAILURES_PER_WINDOW } from '../../src/admin/admin-auth.js';
import { admin } from '../helpers/gateway-processes.js';
import { ADMIN_TOKEN } from '../helpers/harness.js';
import { chat, instancesOnPostgres } from '../helpers/instances.js';

/**
 * Three gateway processes on one PostgreSQL database (each its own GATEWAY_INSTANCE_ID,
 * 127.0.0.1 a trusted proxy): a rate cap and the failed-admin-token lockout hold across the
 * three, and a key revoked through one is refused by the others at once (measured). The
 * processes are started once and shared by the subtests, each with a fresh key.
 */

const instances = await instancesOnPostgres(t);
const gateways = ['gw-a', 'gw-b', 'gw-c'].map((name) => instances.start(name, { GATEWAY_TRUSTED_PROXIES: '127.0.0.1/32' }));
const origins = await Promise.all(gateways.map((gateway) => gateway.ready));
const originOf = (i: number): string => origins[i % origins.length] as string;
const newKey = async (settings: Record<string, unknown>): Promise<{ id: string; key: string }> =>
  (await admin(originOf(0), 'POST', '/keys', { name: 'instances', ...settings })) as { id: string; key: string };
const count = (statuses: readonly number[], status: number): number => statuses.filter((s) => s === status).length;

t.test('rpm_limit 30: 90 calls at once over the three, exactly 30 admitted in the window', async (t) => {
  const { key } = await newKey({ rpm_limit: 30 });
  const results = await Promise.all(Array.from({ length: 90 }, (_, i) => chat(originOf(i), key, 'go')));
  t.same(
    [
      count(
        results.map((r) => r.status),
        200,
      ),
      count(
        results.map((r) => r.status),
        429,
      ),
    ],
    [30, 60],
  );
  const late = await fetch(`${originOf(2)}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gamma-5.4', max_tokens: 4, messages: [{ role: 'user', content: 'again' }] }),
  });
  t.equal(late.status, 429, 'the window is still full on every instance');
  t.ok(Number(late.headers.get('retry-after')) >= 58, `Retry-After ${late.headers.get('retry-after')} s: until the first admission leaves the minute`);
});

t.test('a key revoked through A is refused by B and C within the bound (measured)', async (t) => {
  const { id, key } = await newKey({});
  for (const i of [1, 2]) for (let n = 0; n < 2; n++) t.equal((await chat(originOf(i), key, 'warm')).status, 200, 'B and C remember the key');
  await admin(originOf(0), 'POST', `/keys/${id}/revoke`);
  const revoked = Date.now();
  const refusedAfter = await Promise.all(
    [1, 2].map(async (i) => {
      for (;;) {
        const { status } = await chat(originOf(i), key, 'still?');
        if (status === 401) return Date.now() - revoked;
        if (Date.now() - revoked > 2000) return Number.POSITIVE_INFINITY;
      }
    }),
  );
  t.comment(`refused by B after ${refusedAfter[0]} ms, by C after ${refusedAfter[1]} ms`);
  t.ok(
    refusedAfter.every((ms) => ms < 1000),
    'within the stated second (NOTIFY makes it immediate)',
  );
});

t.test('10 wrong admin tokens through A from one client behind the proxy lock it out on B; another client is not', async (t) => {
  const attempt = (origin: string, client: string, token: string) =>
    fetch(`${origin}/admin/v1/keys`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': client } }).then(async (res) => {
      await res.arrayBuffer();
      return res.status;
    });
  for (let i = 0; i < ADMIN_FAILURES_PER_WINDOW; i++) t.equal(await attempt(originOf(0), '203.0.113.5', 'wrong-token-0000000000'), 401);
  t.equal(await attempt(originOf(1), '203.0.113.5', ADMIN_TOKEN), 429, 'locked out on B, even with the right token');
  t.equal(await attempt(originOf(2), '203.0.113.5', ADMIN_TOKEN), 429, 'and on C');
  t.equal(await attempt(originOf(1), '203.0.113.6', ADMIN_TOKEN), 200, 'another client behind the same proxy is not');
  const rows = await instances.query("SELECT COUNT(*)::int AS n FROM audit_log WHERE status = 429 AND action LIKE '%locked out: 203.0.113.5%'");
  t.equal(rows[0]?.['n'], 1, 'one lockout row in the audit trail for the window, across instances');
});

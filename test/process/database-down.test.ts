import t from 'tap';
import { chatBody, raw, startHarness } from '../helpers/harness.js';
import { startPostgres } from '../helpers/postgres.js';

/**
 * A gateway on PostgreSQL whose server stops and comes back: every call that needs the
 * database answers 503 service_unavailable in our envelope within the database timeout (never
 * a hang, a crash or a 500), /readyz answers 503, and a call whose row could not be written is
 * not acknowledged; once the server is back the same gateway serves again, and the ledger
 * holds exactly the calls that were answered 200.
 */

const TIMEOUT_MS = 1000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

t.test('PostgreSQL stopped under a running gateway, then back', async (t) => {
  const server = await startPostgres(t, { own: true });
  const h = await startHarness(t, { env: { GATEWAY_DATABASE_URL: await server.createDatabase(), GATEWAY_DATABASE_TIMEOUT_MS: String(TIMEOUT_MS) } });
  const { id, key } = await h.createKey({ monthly_ceiling_usd: '1.00', rpm_limit: 1000 });
  const call = (prompt = 'Hi', stream = false) =>
    raw(h.origin, 'POST', '/v1/chat/completions', {
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: chatBody('gamma-5.4', { max_tokens: 4, stream, messages: [{ role: 'user', content: prompt }] }),
    });
  const answered: number[] = [];
  const ok = await call();
  t.equal(ok.status, 200);
  answered.push(ok.status);

  // A call in flight when the server stops: admitted, answered upstream, but its row cannot be written.
  const inFlight = call('slow [[sim:delay_ms=1500]]');
  await sleep(300);
  const resume = await server.outage();
  const cut = await inFlight;
  t.equal(cut.status, 503, 'its reply is not acknowledged');
  t.match(cut.json(), { error: { type: 'unavailable', code: 'service_unavailable', param: null } });

  await sleep(1100); // the key lookup's one-second memory has passed
  for (const [name, send] of [
    ['a call', () => call()],
    ['a streamed call', () => call('Hi', true)],
    ['an admin call', () => h.admin('GET', `/keys/${id}`).then(async (res) => ({ status: res.status, json: async () => res.json() }))],
    ['/status.json', () => fetch(`${h.origin}/status.json`).then((res) => ({ status: res.status, json: () => res.json() }))],
  ] as const) {
    const started = Date.now();
    const res = await send();
    const took = Date.now() - started;
    t.equal(res.status, 503, `${name}: 503 (${took} ms)`);
    t.match(await res.json(), { error: { type: 'unavailable', code: 'service_unavailable' } }, `${name}: in our envelope`);
    t.ok(took < 3 * TIMEOUT_MS, `${name}: within the database timeout, not a hang`);
  }
  const ready = await fetch(`${h.origin}/readyz`);
  t.equal(ready.status, 503, '/readyz answers 503');
  t.equal((await fetch(`${h.origin}/healthz`)).status, 200, 'the process is alive');

  await resume();
  const again = await call();
  t.equal(again.status, 200, 'the same gateway serves again');
  answered.push(again.status);
  t.equal((await fetch(`${h.origin}/readyz`)).status, 200);
  const usage = (await (await h.admin('GET', `/keys/${id}/usage`)).json()) as { totals: { requests: number }; cycle: { reserved_usd: string } };
  t.equal(usage.totals.requests, answered.length, 'the ledger holds exactly the calls answered 200');
});

t.test('PostgreSQL frozen (nothing answers): calls answer 503 within the timeout instead of hanging', async (t) => {
  const server = await startPostgres(t, { own: true });
  const h = await startHarness(t, { env: { GATEWAY_DATABASE_URL: await server.createDatabase(), GATEWAY_DATABASE_TIMEOUT_MS: String(TIMEOUT_MS) } });
  const { key } = await h.createKey({ monthly_ceiling_usd: '1.00' });
  const call = () =>
    raw(h.origin, 'POST', '/v1/chat/completions', {
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: chatBody('gamma-5.4', { max_tokens: 4 }),
    });
  t.equal((await call()).status, 200);
  await sleep(1100);
  const thaw = server.freeze();
  t.teardown(thaw);
  const started = Date.now();
  const [frozen, ready] = await Promise.all([call(), fetch(`${h.origin}/readyz`)]);
  const took = Date.now() - started;
  thaw();
  t.equal(frozen.status, 503, `a call: 503 after ${took} ms`);
  t.match(frozen.json(), { error: { code: 'service_unavailable' } });
  t.equal(ready.status, 503, '/readyz: 503');
  t.ok(took < 3 * TIMEOUT_MS + 1000, 'bounded by the database timeout');
  await sleep(200);
  t.equal((await call()).status, 200, 'thawed: served again');
});

t.test('PostgreSQL frozen with a call in flight on a ceiling: one database timeout, not one per completion step', async (t) => {
  const timeoutMs = 2000;
  const upstreamMs = 1500;
  const server = await startPostgres(t, { own: true });
  const h = await startHarness(t, { env: { GATEWAY_DATABASE_URL: await server.createDatabase(), GATEWAY_DATABASE_TIMEOUT_MS: String(timeoutMs) } });
  const { key } = await h.createKey({ monthly_ceiling_usd: '1.00' });
  const started = Date.now();
  const inFlight = raw(h.origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody('gamma-5.4', { max_tokens: 4, messages: [{ role: 'user', content: `slow [[sim:delay_ms=${upstreamMs}]]` }] }),
  });
  await sleep(300); // admitted: its reservation is held
  const thaw = server.freeze();
  t.teardown(thaw);
  const cut = await inFlight;
  const took = Date.now() - started;
  thaw();
  t.equal(cut.status, 503, `503 after ${took} ms`);
  // The ledger row waits out the timeout; the ceiling's release must not wait it out again.
  t.ok(took < upstreamMs + 1.5 * timeoutMs, `the upstream's ${upstreamMs} ms and one database timeout (${timeoutMs} ms), not two`);
});

import t from 'tap';
import { admin } from '../helpers/gateway-processes.js';
import { chat, instancesOnPostgres } from '../helpers/instances.js';

/**
 * `kill -9` of one of three gateway processes on one PostgreSQL database, under load: every
 * reply it acknowledged (a whole 200 body, a stream's [DONE]) has its ledger row, and the spend
 * reservations of its calls in flight stop counting within the lease — two seconds here
 * (GATEWAY_LEASE_MS, renewed every 500 ms), 120 s by default.
 */

const LEASE_MS = 2000;
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

t.test('an instance killed under load: nothing it acknowledged is missing, its reservations end within the lease', async (t) => {
  const instances = await instancesOnPostgres(t);
  const gateways = ['gw-a', 'gw-b', 'gw-c'].map((name) => instances.start(name, { GATEWAY_LEASE_MS: String(LEASE_MS) }));
  const [a, b, c] = (await Promise.all(gateways.map((gateway) => gateway.ready))) as [string, string, string];
  const load = (await admin(b, 'POST', '/keys', { name: 'load' })) as { id: string; key: string };
  // A ceiling that fits exactly 5 calls of max_tokens 4.
  const held = (await admin(b, 'POST', '/keys', { name: 'held', monthly_ceiling_usd: '0.00005' })) as { id: string; key: string };

  // Five slow calls through A hold the whole ceiling.
  const holders = Array.from({ length: 5 }, () => chat(a, held.key, 'hold [[sim:delay_ms=30000]]').catch(() => null));
  for (let i = 0; i < 50 && (await chat(b, held.key, 'probe')).status !== 402; i++) await sleep(50);
  t.equal((await chat(c, held.key, 'probe')).status, 402, "A's five calls in flight hold the ceiling on every instance");

  // Load on all three: 150 calls, each asking for its own number of tokens (its fingerprint in
  // the ledger), half of them streamed, answered after 0–3 s. A is killed once it has
  // acknowledged ten of its calls.
  let acknowledgedByA = 0;
  const calls = Array.from({ length: 150 }, (_, i) => {
    const tokens = i + 1;
    const origin = [a, b, c][i % 3] as string;
    const stream = i % 2 === 1;
    const body = { max_tokens: 200, stream, ...(stream ? { stream_options: { include_usage: true } } : {}) };
    return chat(origin, load.key, `go [[sim:tokens=${tokens}]] [[sim:delay_ms=${i * 20}]]`, body)
      .then((r) => {
        const acknowledged = r.status === 200 && (stream ? r.text.includes('data: [DONE]') : r.text.endsWith('}'));
        if (acknowledged && origin === a) acknowledgedByA += 1;
        return { origin, tokens, acknowledged };
      })
      .catch(() => ({ origin, tokens, acknowledged: false }));
  });
  while (acknowledgedByA < 10) await sleep(10);
  gateways[0]?.kill('SIGKILL');
  const killedAt = Date.now();
  t.equal(await gateways[0]?.exited, null, 'A was killed');

  // Its reservations keep counting until their lease ends, then no more.
  let refusedAfterKill = 0;
  let admittedAfter = Number.POSITIVE_INFINITY;
  while (Date.now() - killedAt < LEASE_MS + 3000) {
    const { status } = await chat(b, held.key, 'after the crash');
    if (status === 200) {
      admittedAfter = Date.now() - killedAt;
      break;
    }
    refusedAfterKill += 1;
    await sleep(100);
  }
  t.comment(`the dead instance's reservations stopped counting ${admittedAfter} ms after the kill (lease ${LEASE_MS} ms)`);
  t.ok(refusedAfterKill > 0, 'right after the kill they still counted');
  t.ok(admittedAfter <= LEASE_MS + 500, 'and stopped within the lease (plus one poll)');

  const results = await Promise.all(calls);
  await Promise.all(holders);
  const rows = await instances.query('SELECT completion_tokens FROM ledger WHERE key_id = $1', [load.id]);
  const recorded = new Set(rows.map((row) => Number(row['completion_tokens'])));
  const acknowledged = results.filter((r) => r.acknowledged);
  const byA = acknowledged.filter((r) => r.origin === a);
  t.comment(`${acknowledged.length} of 150 acknowledged (${byA.length} by A before the kill), ${rows.length} ledger rows`);
  t.ok(byA.length > 0 && byA.length < 50, 'A acknowledged some calls and was killed during others');
  t.same(
    acknowledged.filter((r) => !recorded.has(r.tokens)),
    [],
    'every acknowledged call has its row',
  );
  await sleep(LEASE_MS / 4 + 200); // a heartbeat of B or C sweeps whatever is left
  t.same(await instances.query("SELECT COUNT(*)::int AS n FROM reservations WHERE instance = 'gw-a'"), [{ n: 0 }], "none of A's reservations is left");
});

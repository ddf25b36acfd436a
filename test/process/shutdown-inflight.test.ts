import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import { createGammaSimulator } from '../../plugins/vendor-gamma/simulator.js';
import { adminAlone, alone } from '../helpers/cluster.js';
import { compiledGateway } from '../helpers/compiled-gateway.js';
import { ADMIN_TOKEN, GAMMA_UPSTREAM_KEY } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';
import { spawnGateway } from '../helpers/spawn-gateway.js';

/**
 * SIGTERM while calls are still in flight when the grace period ends: their connections are
 * closed, and each call still completes — a ledger row (a stream billed for what it produced),
 * its reservation released — before the store closes.
 */

t.setTimeout(180_000);

const GRACE_MS = 1000;
const STREAMS = 6;
const PLAIN = 4;

/** A call far longer than the grace period, on a connection of its own; resolves however it ends. */
function slowCall(origin: string, key: string, stream: boolean): Promise<string> {
  const content = stream ? 'x [[sim:tokens=400]] [[sim:chunk_delay_ms=50]]' : 'x [[sim:delay_ms=20000]]';
  return alone(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gamma-5.4', stream, messages: [{ role: 'user', content }] }),
  }).then(
    () => 'answered',
    () => 'cut',
  );
}

async function cutAtTheEndOfTheGrace(t: Test, workers: string): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-inflight-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const sim = createGammaSimulator({ apiKey: GAMMA_UPSTREAM_KEY });
  await sim.listen();
  t.teardown(() => sim.close());
  const db = join(dir, 'gateway.db');
  const env = { GATEWAY_DB: db, GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, GAMMA_BASE_URL: sim.url, GAMMA_API_KEY: GAMMA_UPSTREAM_KEY };
  const gateway = spawnGateway({ ...env, GATEWAY_WORKERS: workers, GATEWAY_SHUTDOWN_GRACE_MS: String(GRACE_MS) }, await compiledGateway());
  t.teardown(() => gateway.kill('SIGKILL'));
  const origin = await gateway.ready;
  const { id, key } = (await adminAlone(origin, 'POST', '/keys', { name: 'inflight', monthly_ceiling_usd: '100.00' })) as { id: string; key: string };

  const calls = [...Array.from({ length: STREAMS }, () => slowCall(origin, key, true)), ...Array.from({ length: PLAIN }, () => slowCall(origin, key, false))];
  // Every call reached the upstream, and the streams produced some tokens.
  for (let i = 0; i < 200 && sim.openRequests < calls.length; i++) await sleep(25);
  t.equal(sim.openRequests, calls.length, 'every call reached the upstream');
  await sleep(300);
  const signalled = Date.now();
  gateway.kill('SIGTERM');
  t.same(await Promise.all(calls), Array(calls.length).fill('cut'), 'the grace period cut every call');
  t.equal(await gateway.exited, 0, 'a clean stop');
  t.ok(Date.now() - signalled < GRACE_MS + 5000, 'within the grace period and the completions bound');

  const ledger = openLedgerDb(db);
  t.teardown(() => ledger.close());
  const rows = ledger.rows(id);
  t.equal(rows.length, calls.length, 'a ledger row for every call that reached the upstream');
  const streamed = rows.filter((row) => row.stream === 1);
  t.equal(streamed.length, STREAMS);
  t.ok(
    streamed.every((row) => row.completion_tokens > 0 && row.charged_nano > 0),
    'each stream billed for what it produced',
  );
  t.equal(ledger.reservations(), 0, 'no reservation left held');
  t.notMatch(gateway.output(), /completion hook failed|release failed/);
}

t.test('one process: cut calls are billed and released before the store closes', (t) => cutAtTheEndOfTheGrace(t, '1'));
t.test('two workers: the same in each', (t) => cutAtTheEndOfTheGrace(t, '2'));

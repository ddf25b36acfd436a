import { rmSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import t from 'tap';
import { definePlugin } from '../../src/chain/plugin.js';
import type { PluginEntry } from '../../src/config/schema.js';
import { COMPLETIONS_BOUND_MS } from '../../src/gateway.js';
import { startHarness } from '../helpers/harness.js';

const GRACE_MS = 200;
const entry = (name: string): PluginEntry => ({ name, enabled: true, config: {} });

/** A completion hook that never ends: a store write that does not come back. */
const stuck = definePlugin({
  name: 'stuck',
  setup: () => ({ onComplete: () => new Promise<void>(() => undefined) }),
});

t.test('a call still completing after the grace period delays the close by the completions bound at most', async (t) => {
  const h = await startHarness(t, {
    plugins: ['ingress-chat', 'auth', 'model-normalise', 'stuck', 'vendor-gamma'].map(entry),
    registered: { stuck },
    env: { GATEWAY_SHUTDOWN_GRACE_MS: String(GRACE_MS) },
  });
  // The close below fails, so the harness cannot clean up after it.
  t.teardown(async () => {
    await Promise.all([h.alpha, h.beta, h.gamma].map((sim) => sim.close()));
    rmSync(dirname(h.dbPath), { recursive: true, force: true });
  });
  const { key } = await h.createKey();
  const call = h
    .client(key)
    .chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x [[sim:delay_ms=20000]]' }] })
    .catch(() => 'cut');
  while (h.gamma.openRequests === 0) await sleep(10);

  const started = Date.now();
  await t.rejects(h.close(), /1 calls had not completed 5000 ms after their connections closed: their ledger rows may be missing/);
  const took = Date.now() - started;
  t.equal(await call, 'cut');
  t.ok(took >= GRACE_MS + COMPLETIONS_BOUND_MS - 100, `waited for the completion (${took} ms)`);
  t.ok(took < GRACE_MS + COMPLETIONS_BOUND_MS + 2000, 'no longer than the bound');
  t.notOk(
    h.logs.some((line) => line.includes('"msg":"stopped"')),
    'not logged as stopped',
  );
});

t.test('a call whose body was cut short is not waited for: it can reach no upstream', async (t) => {
  const h = await startHarness(t, { env: { GATEWAY_HEADERS_TIMEOUT_MS: '600', GATEWAY_REQUEST_TIMEOUT_MS: '1500' } });
  const { key } = await h.createKey();
  const { hostname, port } = new URL(h.origin);
  const socket = connect(Number(port), hostname);
  t.teardown(() => socket.destroy());
  socket.on('error', () => undefined);
  const refused = new Promise<string>((resolve) => socket.once('data', (chunk: Buffer) => resolve(chunk.toString('latin1'))));
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"model":`,
  );
  t.match(await refused, /^HTTP\/1\.1 408 /, 'the request timeout ended it while the body was being read');

  const started = Date.now();
  await h.close();
  t.ok(Date.now() - started < 1000, 'the close does not wait for it');
  t.ok(
    h.logs.some((line) => line.includes('"msg":"stopped"')),
    'a clean stop',
  );
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import t from 'tap';
import { createGammaSimulator } from '../../plugins/vendor-gamma/simulator.js';
import { ADMIN_TOKEN, GAMMA_UPSTREAM_KEY } from '../helpers/harness.js';
import { spawnGateway } from '../helpers/spawn-gateway.js';

async function startWithSlowUpstream(t: { teardown(fn: () => unknown): void }, graceMs: number) {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-drain-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const sim = createGammaSimulator({ apiKey: GAMMA_UPSTREAM_KEY, chunkDelayMs: 40 });
  await sim.listen();
  t.teardown(() => sim.close());
  const gateway = spawnGateway({
    GATEWAY_DB: join(dir, 'gateway.db'),
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GAMMA_BASE_URL: sim.url,
    GAMMA_API_KEY: GAMMA_UPSTREAM_KEY,
    GATEWAY_SHUTDOWN_GRACE_MS: String(graceMs),
  });
  t.teardown(() => gateway.kill('SIGKILL'));
  const origin = await gateway.ready;
  const created = await fetch(`${origin}/admin/v1/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'drain' }),
  });
  const { key } = (await created.json()) as { key: string };
  return { gateway, origin, client: new OpenAI({ apiKey: key, baseURL: `${origin}/v1`, maxRetries: 0 }) };
}

t.test('SIGTERM: stop accepting, let the in-flight stream finish, exit 0', async (t) => {
  const { gateway, origin, client } = await startWithSlowUpstream(t, 10_000);
  const stream = await client.chat.completions.create({ model: 'gamma-5.4', stream: true, messages: [{ role: 'user', content: 'x [[sim:tokens=20]]' }] });
  let text = '';
  let signalled = false;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta.content ?? '';
    if (!signalled) {
      signalled = true;
      gateway.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 100));
      const refused = await fetch(`${origin}/v1/models`).then(
        () => 'answered',
        () => 'refused',
      );
      t.equal(refused, 'refused', 'new connections are refused while draining');
    }
  }
  t.equal(text.split(' ').length, 20, 'the in-flight stream completed in full');
  t.equal(await gateway.exited, 0);
  t.match(gateway.output(), /"msg":"stopped"/, 'the batched log is flushed before the exit');
});

t.test('SIGTERM: the drain is bounded by the grace period', async (t) => {
  const { gateway, client } = await startWithSlowUpstream(t, 300);
  const stream = await client.chat.completions.create({ model: 'gamma-5.4', stream: true, messages: [{ role: 'user', content: 'x [[sim:tokens=400]]' }] });
  const started = Date.now();
  const outcome = await (async () => {
    for await (const _chunk of stream) {
      if (Date.now() - started > 50 && gateway.process.exitCode === null && !gateway.process.killed) gateway.kill('SIGTERM');
    }
    return 'completed';
  })().catch(() => 'cut');
  t.equal(outcome, 'cut', 'a stream longer than the grace period is cut');
  t.equal(await gateway.exited, 0);
  t.ok(Date.now() - started < 5000, 'well before the stream would have ended');
});

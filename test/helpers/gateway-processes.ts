import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGammaSimulator } from '../../plugins/vendor-gamma/simulator.js';
import { ADMIN_TOKEN, chatBody, GAMMA_UPSTREAM_KEY } from './harness.js';
import { spawnGateway, type SpawnedGateway } from './spawn-gateway.js';

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface GatewayProcesses {
  /** The SQLite file every process started here shares. */
  db: string;
  /** Spawns a gateway process on it (killed at teardown at the latest), with extra env if given. */
  start(env?: Record<string, string>): SpawnedGateway;
}

/**
 * A gamma simulator and one database file for gateway processes the test starts (and kills);
 * `entry`: a transpiled main.js to run (compiled-gateway.ts) instead of the sources.
 */
export async function gatewayProcesses(t: Teardown, chunkDelayMs: number, entry?: string): Promise<GatewayProcesses> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-crash-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const sim = createGammaSimulator({ apiKey: GAMMA_UPSTREAM_KEY, chunkDelayMs });
  await sim.listen();
  t.teardown(() => sim.close());
  const db = join(dir, 'gateway.db');
  const start = (env: Record<string, string> = {}): SpawnedGateway => {
    const gateway = spawnGateway(
      { GATEWAY_DB: db, GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN, GAMMA_BASE_URL: sim.url, GAMMA_API_KEY: GAMMA_UPSTREAM_KEY, ...env },
      entry,
    );
    t.teardown(() => gateway.kill('SIGKILL'));
    return gateway;
  };
  return { db, start };
}

/** An admin API call; throws unless it succeeds. */
export async function admin(origin: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${origin}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json();
}

/**
 * Two gateway processes sharing one store: a key with a ceiling that fits exactly 10 calls gets
 * 60 at once, alternating between the two. Returns the statuses and the key's cycle as read on
 * the second process.
 */
export async function sixtyCallsOnOneCeiling(origins: readonly string[]): Promise<{ statuses: number[]; cycle: { spent_usd: string; reserved_usd: string } }> {
  const { id, key } = (await admin(origins[0] as string, 'POST', '/keys', { name: 'shared', monthly_ceiling_usd: '0.0001' })) as { id: string; key: string };
  const statuses = await Promise.all(
    Array.from({ length: 60 }, async (_, i) => {
      const res = await fetch(`${origins[i % 2]}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: chatBody('gamma-5.4', { max_tokens: 4, messages: [{ role: 'user', content: 'go [[sim:delay_ms=100]]' }] }),
      });
      await res.arrayBuffer();
      return res.status;
    }),
  );
  const usage = (await admin(origins[1] as string, 'GET', `/keys/${id}/usage`)) as { cycle: { spent_usd: string; reserved_usd: string } };
  return { statuses, cycle: usage.cycle };
}

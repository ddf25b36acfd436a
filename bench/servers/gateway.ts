import { randomBytes } from 'node:crypto';
import { closeSync, mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ProcessGroup, Started } from '../lib/processes.js';
import type { SimulatorOrigins } from './simulators.js';

/**
 * The gateway under test, as production runs it: the compiled `dist/src/main.js` with
 * config/gateway.yaml (every default plugin), logging at info to a file, its own temporary
 * SQLite database, every family's upstream pointed at the bench's simulator process (a
 * credential set, so it starts no simulator of its own), and one key made through the admin API.
 */

export interface BenchGateway {
  origin: string;
  key: string;
  process: Started;
  /** Removes the temporary database (after the process has stopped). */
  cleanup(): void;
}

/** The monthly spend ceiling of the bench key: set, so the ceiling plugin reserves and settles on every call, and far from reached. */
const CEILING_USD = '1000000.00';
/** The highest cap the admin API takes, so the rate-limit plugin counts every call but never refuses one. */
const RPM_LIMIT = 1_000_000;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitHealthy(origin: string, started: Started, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`bench: the gateway exited (${started.child.exitCode}) during start-up; see its log`);
    const healthy = await fetch(`${origin}/healthz`).then(
      (res) => res.ok,
      () => false,
    );
    if (healthy) return;
    await sleep(100);
  }
  throw new Error(`bench: the gateway did not answer /healthz within ${timeoutMs} ms`);
}

async function createKey(origin: string, adminToken: string): Promise<string> {
  const res = await fetch(`${origin}/admin/v1/keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', models: null, monthly_ceiling_usd: CEILING_USD, rpm_limit: RPM_LIMIT }),
  });
  if (res.status !== 201) throw new Error(`bench: creating the key failed: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { key: string }).key;
}

/** `profileDir`: write a V8 CPU profile of the gateway there (`--cpu-prof`, written when it stops). */
export async function startGateway(group: ProcessGroup, core: number | null, sims: SimulatorOrigins, logFile: string, profileDir: string | null): Promise<BenchGateway> {
  const dir = mkdtempSync(join(tmpdir(), 'model-gateway-bench-'));
  const port = await freePort();
  const adminToken = randomBytes(24).toString('base64url');
  const upstream = (origin: string): Record<string, string> => ({ base: origin, key: 'bench-upstream-credential' });
  const families = { ALPHA: upstream(sims.alpha), BETA: upstream(sims.gamma), GAMMA: upstream(sims.gamma) };
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    GATEWAY_DB: join(dir, 'gateway.db'),
    GATEWAY_ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'info',
    // beta is not measured; its base points at a live server so nothing in the gateway waits on a dead one.
    ...Object.fromEntries(Object.entries(families).flatMap(([family, { base, key }]) => [[`${family}_BASE_URL`, base], [`${family}_API_KEY`, key]])),
  };
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  // Also on Ctrl-C, which ends the orchestrator with process.exit.
  process.once('exit', cleanup);
  const log = openSync(logFile, 'a');
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const started = group.spawnNode('gateway', core, [...profile, 'dist/src/main.js'], { env, output: log, ipc: false });
  closeSync(log);
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitHealthy(origin, started);
    return { origin, key: await createKey(origin, adminToken), process: started, cleanup };
  } catch (error) {
    started.child.kill('SIGKILL');
    cleanup();
    throw error;
  }
}

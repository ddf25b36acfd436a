import { randomBytes } from 'node:crypto';
import { closeSync, fstatSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse, stringify } from 'yaml';
import type { ProcessGroup, Started } from '../lib/processes.js';
import { startFlags } from '../lib/start-flags.js';
import type { Target } from '../lib/targets.js';
import type { GatewayEndpoint } from '../lib/workload.js';
import type { SimulatorOrigins } from './simulators.js';

/**
 * A gateway under test, as production runs it: the compiled `dist/src/main.js` with the node
 * flags of its checkout's `npm start` (lib/start-flags.ts), config/gateway.yaml (every default
 * plugin), logging at info to a file, a database of its own (a temporary SQLite file, or a
 * database on the bench's PostgreSQL server), its variant's
 * GATEWAY_WORKERS, every family's upstream pointed at the bench's simulator process (a
 * credential set, so it starts no simulator of its own), and one key made through the admin API.
 */

export interface BenchGateway extends GatewayEndpoint {
  target: Target;
  /** The gateway process: with several workers, their primary (the workers are its children). */
  process: Started;
  /** Removes the temporary database (after the process has stopped). */
  cleanup(): void;
}

export interface GatewayStart {
  target: Target;
  /** Cores of the servers (a taskset list), or null. */
  cpus: string | null;
  sims: SimulatorOrigins;
  /** stdout and stderr go here. */
  logFile: string;
  /** Write a V8 CPU profile there (`--cpu-prof`, written when it stops; one per worker), or null. */
  profileDir: string | null;
  /** The PostgreSQL database of a `postgres` variant. */
  databaseUrl: string | null;
  /** The OTLP/HTTP endpoint of a `--telemetry` gateway (bench/servers/otlp-sink.ts), or null: telemetry off. */
  otlpEndpoint: string | null;
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

/** Until its log says `gateway listening` (with several workers: once every worker listens), past `from` bytes. */
async function waitListening(logFile: string, from: number, started: Started, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`bench: the gateway exited (${started.child.exitCode}) during start-up; see ${logFile}`);
    if (readFileSync(logFile).subarray(from).includes('"msg":"gateway listening"')) return;
    await sleep(100);
  }
  throw new Error(`bench: the gateway did not listen within ${timeoutMs} ms; see ${logFile}`);
}

/** The bench's upstream credential, named by every deployment of a `--deployments` gateway. */
const DEPLOYMENT_KEY_ENV = 'BENCH_UPSTREAM_KEY';

/**
 * A `--deployments N` gateway's config: the checkout's config/gateway.yaml with each family's
 * upstream as N deployments on that family's simulator, weighted 2:1:…, written to `dir`.
 */
function deploymentsConfig(dir: string, origins: Readonly<Record<string, string>>, count: number): string {
  const config = parse(readFileSync('config/gateway.yaml', 'utf8')) as Record<string, unknown>;
  config['catalogue'] = resolve('config', String(config['catalogue']));
  config['upstreams'] = Object.fromEntries(
    Object.entries(origins).map(([family, origin]) => [
      family,
      Array.from({ length: count }, (_, i) => ({ name: `d${i + 1}`, base_url: origin, api_key_env: DEPLOYMENT_KEY_ENV, weight: i === 0 ? 2 : 1 })),
    ]),
  );
  const file = join(dir, 'gateway.yaml');
  writeFileSync(file, stringify(config));
  return file;
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

export async function startGateway(group: ProcessGroup, options: GatewayStart): Promise<BenchGateway> {
  const { target, sims, logFile } = options;
  const variant = target.variant ?? { store: 'sqlite', workers: 1 };
  const dir = mkdtempSync(join(tmpdir(), 'model-gateway-bench-'));
  const port = await freePort();
  const adminToken = randomBytes(24).toString('base64url');
  const upstream = (origin: string): { base: string; key: string } => ({ base: origin, key: 'bench-upstream-credential' });
  const families = { ALPHA: upstream(sims.alpha), BETA: upstream(sims.gamma), GAMMA: upstream(sims.gamma) };
  const env: NodeJS.ProcessEnv = {
    PATH: process.env['PATH'],
    HOME: process.env['HOME'],
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    GATEWAY_DB: join(dir, 'gateway.db'),
    ...(options.databaseUrl ? { GATEWAY_DATABASE_URL: options.databaseUrl } : {}),
    ...(options.otlpEndpoint ? { OTEL_EXPORTER_OTLP_ENDPOINT: options.otlpEndpoint } : {}),
    GATEWAY_WORKERS: String(variant.workers),
    GATEWAY_ADMIN_TOKEN: adminToken,
    LOG_LEVEL: 'info',
  };
  if (variant.deployments) {
    const origins = Object.fromEntries(Object.entries(families).map(([family, { base }]) => [family.toLowerCase(), base]));
    env['GATEWAY_CONFIG'] = deploymentsConfig(dir, origins, variant.deployments);
    env[DEPLOYMENT_KEY_ENV] = families.GAMMA.key;
  } else {
    // beta is not measured; its base points at a live server so nothing in the gateway waits on a dead one.
    for (const [family, { base, key }] of Object.entries(families)) {
      env[`${family}_BASE_URL`] = base;
      env[`${family}_API_KEY`] = key;
    }
  }
  const cleanup = (): void => rmSync(dir, { recursive: true, force: true });
  // Also on Ctrl-C, which ends the orchestrator with process.exit.
  process.once('exit', cleanup);
  const log = openSync(logFile, 'a');
  const from = fstatSync(log).size;
  const profile = options.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${options.profileDir}`] : [];
  // Another checkout's gateway (--against) runs from its own root, with its own config/.
  const cwd = variant.checkout?.dir;
  const flags = startFlags(cwd ?? process.cwd());
  const started = group.spawnNode(target.id, options.cpus, [...flags, ...profile, 'dist/src/main.js'], {
    env,
    output: log,
    ipc: false,
    ...(cwd ? { cwd } : {}),
  });
  closeSync(log);
  const origin = `http://127.0.0.1:${port}`;
  try {
    await waitListening(logFile, from, started);
    return { target, origin, key: await createKey(origin, adminToken), process: started, cleanup };
  } catch (error) {
    started.child.kill('SIGKILL');
    cleanup();
    throw error;
  }
}

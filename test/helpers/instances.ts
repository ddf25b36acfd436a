import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { parse, stringify } from 'yaml';
import { compiledGateway } from './compiled-gateway.js';
import { gatewayProcesses } from './gateway-processes.js';
import { chatBody } from './harness.js';
import { startPostgres } from './postgres.js';
import type { SpawnedGateway } from './spawn-gateway.js';

/**
 * Several gateway processes (`src/main.ts`, transpiled once: compiled-gateway.ts) sharing one
 * throwaway PostgreSQL database and one gamma simulator, as in production: each its own
 * GATEWAY_INSTANCE_ID. Killed (SIGKILL) at the
 * test's teardown at the latest; the server and its files go with the file.
 */

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface InstancesOptions {
  /** The simulator's pause between stream chunks. */
  chunkDelayMs?: number;
  /** Plugin `config:` blocks to set in a copy of config/gateway.yaml, by plugin name. */
  plugins?: Record<string, Record<string, unknown>>;
  /** `upstreams` of that copy (a family's list of deployments: docs/deployments.md). */
  upstreams?: Record<string, unknown>;
}

export interface Instances {
  /** Spawns instance `name` on the shared database, with the admin token unless `env` clears it (''). */
  start(name: string, env?: Record<string, string>): SpawnedGateway;
  /** A query on the shared database, outside every gateway. */
  query(sql: string, values?: unknown[]): Promise<Array<Record<string, unknown>>>;
}

/** A copy of config/gateway.yaml with the given plugin configs and upstreams, in a temp dir; its path. */
function configFile(t: Teardown, plugins: Record<string, Record<string, unknown>>, upstreams?: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-config-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const config = parse(readFileSync('config/gateway.yaml', 'utf8')) as {
    catalogue: string;
    plugins: Array<{ name: string; config?: unknown }>;
    upstreams?: Record<string, unknown>;
  };
  config.catalogue = resolve('config', config.catalogue);
  if (upstreams) config.upstreams = upstreams;
  for (const entry of config.plugins) if (plugins[entry.name]) entry.config = plugins[entry.name];
  const file = join(dir, 'gateway.yaml');
  writeFileSync(file, stringify(config));
  return file;
}

export async function instancesOnPostgres(t: Teardown, options: InstancesOptions = {}): Promise<Instances> {
  const [url, entry] = await Promise.all([startPostgres(t).then((server) => server.createDatabase()), compiledGateway()]);
  const processes = await gatewayProcesses(t, options.chunkDelayMs ?? 0, entry);
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  t.teardown(() => pool.end());
  const config: Record<string, string> =
    options.plugins || options.upstreams ? { GATEWAY_CONFIG: configFile(t, options.plugins ?? {}, options.upstreams) } : {};
  return {
    start: (name, env = {}) => processes.start({ GATEWAY_DATABASE_URL: url, GATEWAY_INSTANCE_ID: name, ...config, ...env }),
    query: async (sql, values = []) => (await pool.query<Record<string, unknown>>(sql, values)).rows,
  };
}

/** One chat call over plain HTTP: its status and whole body (a 200 read to its end is acknowledged). */
export async function chat(origin: string, key: string, prompt: string, extra: Record<string, unknown> = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(`${origin}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody('gamma-5.4', { max_tokens: 4, messages: [{ role: 'user', content: prompt }], ...extra }),
  });
  return { status: res.status, text: await res.text() };
}

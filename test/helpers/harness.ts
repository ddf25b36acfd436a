import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import OpenAI from 'openai';
import type { Plugin } from '../../src/chain/plugin.js';
import { loadCatalogue, type Catalogue } from '../../src/catalogue/catalogue.js';
import { systemClock, type Clock } from '../../src/clock.js';
import type { GatewayConfig, PluginEntry } from '../../src/config/schema.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import { createLogger } from '../../src/log.js';
import { loadSetup } from '../../src/setup.js';
import { createAlphaSimulator } from '../../plugins/vendor-alpha/simulator.js';
import { createBetaSimulator } from '../../plugins/vendor-beta/simulator.js';
import { createGammaSimulator } from '../../plugins/vendor-gamma/simulator.js';
import type { SimServer } from '../../src/simulators/sim-server.js';
import { openStore } from '../../src/store/open-store.js';
import type { Store } from '../../src/store/store.js';
import { harnessDatabase } from './harness-database.js';
import { healthPolicy } from '../../src/upstreams/deployments.js';
import { openUpstreamHealth } from '../../src/upstreams/health-store/index.js';
import type { UpstreamHealth } from '../../src/upstreams/health.js';

/**
 * Starts the real gateway on an ephemeral port of 127.0.0.1 with a real SQLite file in a
 * temp folder (or a real PostgreSQL database: harness-database.ts) and real alpha, beta and
 * gamma simulators as its upstreams, configured through the same YAML and env overrides as
 * `npm start`. Everything is torn down with the test.
 */

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
export const GAMMA_UPSTREAM_KEY = 'gamma-upstream-secret-key';
export const ALPHA_UPSTREAM_KEY = 'alpha-upstream-secret-key';
export const BETA_UPSTREAM_KEY = 'beta-upstream-secret-key';
/** Each family's upstream credential, named: for tests that hold an output against all of them. */
export const UPSTREAM_CREDENTIALS = [
  ['the alpha credential', ALPHA_UPSTREAM_KEY],
  ['the beta credential', BETA_UPSTREAM_KEY],
  ['the gamma credential', GAMMA_UPSTREAM_KEY],
] as const;

export class FakeClock implements Clock {
  constructor(public ms = Date.parse('2026-11-15T12:00:00Z')) {}
  now(): number {
    return this.ms;
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

export interface HarnessOptions {
  env?: Record<string, string>;
  /** Another config file than config/gateway.yaml. */
  configFile?: string;
  /** Replaces the plugin list of config/gateway.yaml. */
  plugins?: PluginEntry[];
  /** Plugins registered by name (for test-only plugins). */
  registered?: Record<string, Plugin>;
  clock?: Clock;
  /** Use these simulators instead of fresh ones. */
  gamma?: SimServer;
  alpha?: SimServer;
  beta?: SimServer;
  /** Edits applied to the loaded config before the gateway is built. */
  configure?: (config: GatewayConfig) => void;
  /** Families to present as answered by a simulator (the status page's banner). */
  simulatedFamilies?: string[];
  /** The deployments' health; default: the store's, as `npm start` opens it, with the config's policy. */
  health?: UpstreamHealth;
  /** The weighted choice's random source (seeded in tests of the split). */
  random?: () => number;
  /** What the gateway gets instead of the store (e.g. one that notes its calls); the harness closes the store itself. */
  wrapStore?: (store: Store) => Store;
}

export interface Harness {
  origin: string;
  baseURL: string;
  gamma: SimServer;
  alpha: SimServer;
  beta: SimServer;
  gateway: Gateway;
  store: Store;
  catalogue: Catalogue;
  config: GatewayConfig;
  /** The SQLite file (on PostgreSQL, a path nothing uses). */
  dbPath: string;
  /** Everything the database holds, as text (the SQLite file and its WAL, or every row on PostgreSQL). */
  databaseText(): Promise<string>;
  /** Every JSON log line written so far. */
  logs: string[];
  /** Creates a key through the admin API; returns its id and full value. */
  createKey(settings?: Record<string, unknown>): Promise<{ id: string; key: string }>;
  /** The official client, pointed at the gateway. No client retries unless asked. */
  client(key: string, options?: { maxRetries?: number }): OpenAI;
  admin(method: string, path: string, body?: unknown): Promise<Response>;
  close(): Promise<void>;
}

export async function startHarness(t: Teardown, options: HarnessOptions = {}): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-test-'));
  const database = await harnessDatabase(dir);
  const gamma = options.gamma ?? createGammaSimulator({ apiKey: GAMMA_UPSTREAM_KEY });
  const alpha = options.alpha ?? createAlphaSimulator({ apiKey: ALPHA_UPSTREAM_KEY });
  const beta = options.beta ?? createBetaSimulator({ apiKey: BETA_UPSTREAM_KEY });
  for (const sim of [gamma, alpha, beta]) if (!sim.url) await sim.listen();
  // Only the simulators this harness made are its to close.
  const ownSims = [options.gamma ? null : gamma, options.alpha ? null : alpha, options.beta ? null : beta].filter((sim) => sim !== null);
  const closeSims = (): Promise<unknown> => Promise.all(ownSims.map((sim) => sim.close()));
  const env = {
    ...database.env,
    GATEWAY_ADMIN_TOKEN: ADMIN_TOKEN,
    GAMMA_BASE_URL: gamma.url,
    GAMMA_API_KEY: GAMMA_UPSTREAM_KEY,
    ALPHA_BASE_URL: alpha.url,
    ALPHA_API_KEY: ALPHA_UPSTREAM_KEY,
    BETA_BASE_URL: beta.url,
    BETA_API_KEY: BETA_UPSTREAM_KEY,
    LOG_LEVEL: 'info',
    ...options.env,
  };
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  let parts: { config: GatewayConfig; catalogue: Catalogue; store: Store; gateway: Gateway };
  try {
    parts = await assemble(options, env, sink);
  } catch (error) {
    await closeSims();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const { config, catalogue, store, gateway } = parts;
  const origin = await gateway.listen(0, '127.0.0.1');
  const clients: OpenAI[] = [];

  const admin = (method: string, path: string, body?: unknown): Promise<Response> =>
    fetch(`${origin}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  let closed = false;
  const harness: Harness = {
    origin,
    baseURL: `${origin}/v1`,
    gamma,
    alpha,
    beta,
    gateway,
    store,
    catalogue,
    config,
    dbPath: database.path,
    databaseText: () => database.text(),
    logs,
    admin,
    async createKey(settings = {}) {
      const res = await admin('POST', '/keys', { name: 'test key', ...settings });
      if (res.status !== 201) throw new Error(`key creation failed: ${res.status} ${await res.text()}`);
      const json = (await res.json()) as { id: string; key: string };
      return { id: json.id, key: json.key };
    },
    client(key, clientOptions = {}) {
      const client = new OpenAI({ apiKey: key, baseURL: `${origin}/v1`, maxRetries: clientOptions.maxRetries ?? 0, timeout: 20_000 });
      clients.push(client);
      return client;
    },
    async close() {
      if (closed) return;
      closed = true;
      await gateway.close();
      await closeSims();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  t.teardown(() => harness.close());
  return harness;
}

/** Config, catalogue, store and gateway as `npm start` builds them; nothing is left open if a step fails. */
async function assemble(options: HarnessOptions, env: Record<string, string>, sink: Writable) {
  const setup = await loadSetup(options.configFile ?? 'config/gateway.yaml', env, {
    edit: (config) => {
      if (options.plugins) config.plugins = options.plugins;
      options.configure?.(config);
    },
    ...(options.registered ? { registered: options.registered } : {}),
  });
  const { config } = setup;
  const log = createLogger(config.log.level, sink);
  const catalogue = loadCatalogue(setup.cataloguePath);
  // The production factory: the SQLite file at GATEWAY_DB or PostgreSQL at GATEWAY_DATABASE_URL, with the key-lookup memory.
  const store = await openStore(config.database);
  try {
    const gateway = await createGateway({
      config,
      catalogue,
      store: options.wrapStore ? options.wrapStore(store) : store,
      log,
      plugins: setup.plugins,
      env: setup.env,
      health: options.health ?? (await openUpstreamHealth(store, healthPolicy(config.upstream_health), options.clock ?? systemClock)),
      ...(options.random ? { random: options.random } : {}),
      ...(options.clock ? { clock: options.clock } : {}),
      ...(options.simulatedFamilies ? { simulatedFamilies: options.simulatedFamilies } : {}),
    });
    return { config, catalogue, store, gateway };
  } catch (error) {
    await store.close();
    throw error;
  }
}

/** Raw HTTP against the gateway, for what the official client cannot send (bad JSON, odd headers). */
export async function raw(
  origin: string,
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: Headers; text: string; json: () => any }> {
  const res = await fetch(`${origin}${path}`, {
    method,
    headers: init.headers ?? {},
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, json: () => JSON.parse(text) };
}

export const chatBody = (model = 'gamma-5.4', extra: Record<string, unknown> = {}): string =>
  JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello there' }], ...extra });

/** Like `raw`, through node:http, which (unlike fetch) lets a test send hop-by-hop headers. */
export function rawHttp(
  origin: string,
  method: string,
  path: string,
  /** A header given as a list is sent once per value. */
  init: { headers?: Record<string, string | string[]>; body?: string } = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; text: string; json: () => any }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${path}`, { method, headers: init.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json: () => JSON.parse(text) });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}

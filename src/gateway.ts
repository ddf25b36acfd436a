import type { Express } from 'express';
import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { Registry } from 'prom-client';
import { adminRouter } from './admin/admin-router.js';
import { adminTokenHash } from './bootstrap.js';
import type { Catalogue } from './catalogue/catalogue.js';
import { Chain } from './chain/chain.js';
import { setupPlugins } from './chain/load-plugins.js';
import type { PluginContext } from './chain/plugin.js';
import type { ResolvedPlugin } from './chain/resolve-plugins.js';
import { systemClock, type Clock } from './clock.js';
import type { Env } from './config/load.js';
import type { GatewayConfig } from './config/schema.js';
import { apiEntry } from './http/api-entry.js';
import { TrustedProxies } from './http/client-address.js';
import { createApp } from './http/app.js';
import { bodyReader } from './http/body-reader.js';
import { GatewayError } from './http/errors.js';
import { GatewayServer } from './http/server.js';
import { sendError } from './http/respond.js';
import { WebSocketHub } from './http/websocket/hub.js';
import { KeyService } from './keys/key-service.js';
import { createConnectors } from './imports/connectors.js';
import { ImportService } from './imports/import-service.js';
import { Pipeline } from './pipeline/pipeline.js';
import { ReasoningSeal } from './neutral/reasoning-state.js';
import { ProxyCore } from './proxy/proxy-core.js';
import type { Store } from './store/store.js';
import { deploymentTable, Deployments } from './upstreams/deployments.js';
import type { UpstreamHealth } from './upstreams/health.js';
import { DeploymentSelector } from './upstreams/selection.js';

/**
 * After the grace period, once the last connections are closed: how long the calls cut so may
 * still take to complete (their ledger rows and releases are store writes) before the store closes.
 */
export const COMPLETIONS_BOUND_MS = 5_000;

export interface GatewayOptions {
  config: GatewayConfig;
  catalogue: Catalogue;
  store: Store;
  log: Logger;
  /** The enabled plugins in chain order, resolved from the config (see src/setup.ts). */
  plugins: readonly ResolvedPlugin[];
  clock?: Clock;
  /** Families answered by a built-in simulator (shown on /status, logged at start). */
  simulatedFamilies?: readonly string[];
  /** What `/metrics` serves; default: the gateway's own registry. A cluster worker serves the group's. */
  scrapeMetrics?: (own: Registry) => Promise<string>;
  /** The deployments' shared health: cooldowns and rate headroom (src/upstreams/health.ts). Closed with the gateway. */
  health: UpstreamHealth;
  /** Uniform in [0, 1) for the weighted choice of a deployment; injectable so tests can seed it. */
  random?: () => number;
  /** The environment the config was loaded with, handed to the plugins (`PluginContext.env`); default: `process.env`. */
  env?: Env;
}

export interface Gateway {
  readonly server: Server;
  readonly metrics: Registry;
  readonly chain: Chain;
  /**
   * Puts a new deployment list in force (SIGHUP: src/upstreams/reload.ts), from a settled
   * `config.upstreams`: calls in flight keep the deployment they hold, new calls see the new
   * list. The families answered by a simulator keep it.
   */
  reloadDeployments(upstreams: GatewayConfig['upstreams']): void;
  /** Listens and resolves with the origin, e.g. `http://127.0.0.1:8080`. */
  listen(port: number, host: string): Promise<string>;
  /**
   * Graceful stop: refuse new connections, let in-flight requests finish (bounded), let every call
   * complete (bounded), release everything. Rejects if a call had not completed when the store closed.
   */
  close(): Promise<void>;
}

/** Builds the whole gateway (plugins, proxy core, app, HTTP server) from loaded parts. */
export async function createGateway(options: GatewayOptions): Promise<Gateway> {
  const { config, catalogue, store, log } = options;
  const clock = options.clock ?? systemClock;
  const families = options.plugins.flatMap(({ plugin }) => (plugin.vendor ? [plugin.vendor.family] : []));
  for (const family of catalogue.unservedFamilies(families)) {
    log.warn({ family }, `no enabled vendor plugin serves the ${family} family of the catalogue: its models answer 503`);
  }
  const deployments = new Deployments(deploymentTable(config.upstreams, families));
  options.health.choosing(deployments.anyChoice());
  const metrics = new Registry();
  // Bound once the plugins are set up; until then `dispatch` answers 503.
  let app: Express | undefined;
  const context = (plugin: string): PluginContext => ({
    config,
    catalogue,
    store,
    clock,
    metrics,
    scrapeMetrics: () => (options.scrapeMetrics ? options.scrapeMetrics(metrics) : metrics.metrics()),
    log: log.child({ plugin }),
    families,
    upstreamCredential: (family, deployment) => deployments.credential(family, deployment),
    upstreamCredentials: () => deployments.credentials(),
    upstreamBaseUrl: (family, deployment) => deployments.baseUrl(family, deployment),
    env: options.env ?? process.env,
    simulatedFamilies: options.simulatedFamilies ?? [],
    dispatch: (req, res) => {
      if (app) app(req, res);
      else sendError(res, new GatewayError(503, 'The gateway is still starting.'));
    },
  });
  const chain = new Chain(await setupPlugins(options.plugins, context), log);
  const proxy = new ProxyCore(deployments.all(), {
    headersMs: config.timeouts.upstream_ms,
    connectMs: config.timeouts.connect_ms,
    forwardedHeaders: config.forwarded_caller_headers,
  });
  const pipeline = new Pipeline({
    chain,
    proxy,
    clock,
    log,
    body: bodyReader({ maxBytes: config.server.max_body_bytes, maxBytesHeld: config.server.max_body_bytes_held }),
    limits: { upstreamMs: config.timeouts.upstream_ms, streamIdleMs: config.timeouts.stream_idle_ms },
    store,
    parameters: config.parameters,
    deployments: new DeploymentSelector(deployments, options.health, log, options.random),
    retryMax: config.retry.max,
    reasoningSeal: await ReasoningSeal.load(store.settings),
  });
  const keys = new KeyService(store, catalogue, clock);
  const admin = adminRouter({
    store,
    keys,
    imports: new ImportService(store, catalogue, clock, createConnectors(config.imports.connectors)),
    clock,
    log,
    adminTokenHash: await adminTokenHash(store, config.admin.token),
    trustedProxies: new TrustedProxies(config.server.trusted_proxies),
    mountPluginRoutes: (router) => chain.mountAdminRoutes(router),
    deployments: { list: () => deployments.all(), health: options.health },
  });
  const express = createApp({ catalogue, chain, admin, log, maxBodyBytes: config.server.max_body_bytes });
  app = express;
  const http = new GatewayServer({
    api: apiEntry(chain.endpoints, pipeline),
    fallback: express,
    log,
    limits: config.server,
  });
  if (chain.webSockets.length > 0) {
    http.serveWebSockets(new WebSocketHub({ server: http.server, chain, routes: chain.webSockets, limits: config.server.websocket, clock, log }));
  }

  let closing: Promise<void> | null = null;
  async function shutdown(): Promise<void> {
    await http.drain();
    const unfinished = await pipeline.settled(COMPLETIONS_BOUND_MS);
    await chain.close();
    proxy.close();
    options.health.close();
    await store.close();
    if (unfinished > 0)
      throw new Error(`${unfinished} calls had not completed ${COMPLETIONS_BOUND_MS} ms after their connections closed: their ledger rows may be missing`);
    log.info('stopped');
  }

  return {
    server: http.server,
    metrics,
    chain,
    reloadDeployments(upstreams) {
      const simulated = new Set(options.simulatedFamilies ?? []);
      const table = new Map(deploymentTable(upstreams, families));
      for (const family of simulated) table.set(family, deployments.of(family));
      deployments.replace(table);
      options.health.choosing(deployments.anyChoice());
      proxy.setDeployments(deployments.all());
    },
    listen: (port, host) => http.listen(port, host),
    close: () => (closing ??= shutdown()),
  };
}

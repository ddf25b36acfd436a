import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { bootstrapBanner, firstStart } from './bootstrap.js';
import { loadCatalogue } from './catalogue/catalogue.js';
import { systemClock } from './clock.js';
import { WorkerMetrics } from './cluster/group-metrics.js';
import { adoptSimulators, workerInstanceId, WORKER_SIMULATORS_ENV, type ListeningMessage } from './cluster/protocol.js';
import type { Env } from './config/load.js';
import { createGateway, type Gateway, type GatewayOptions } from './gateway.js';
import { KeyService } from './keys/key-service.js';
import { createLogger } from './log.js';
import { closeOnSignals } from './process-signals.js';
import { loadSetup, type GatewaySetup } from './setup.js';
import { startSimulatorsForMissingCredentials } from './simulators/start-simulators.js';
import { describeDatabase, openStore } from './store/open-store.js';
import type { Store } from './store/store.js';
import { healthPolicy } from './upstreams/deployments.js';
import { openUpstreamHealth, type StoreUpstreamHealth } from './upstreams/health-store/index.js';
import { reloadDeployments, reloadOnHangup } from './upstreams/reload.js';

/** One gateway instance in this process: the whole gateway (GATEWAY_WORKERS=1), or one worker of several. */

/** The process's store; a failed idle PostgreSQL connection is logged (the pool replaces it). */
function openInstanceStore(loaded: GatewaySetup, log: Logger): Promise<Store> {
  return openStore(loaded.config.database, {
    onBackgroundError: (error) => log.warn({ err: error }, 'database connection lost; a new one is opened'),
    onMigrated: (versions, track) => log.info({ track, versions }, 'database migrations applied'),
  });
}

/** The deployments' health, shared through the store by every instance on it (docs/deployments.md#health-and-cooldowns). */
function openInstanceHealth(loaded: GatewaySetup, store: Store, log: Logger): Promise<StoreUpstreamHealth> {
  return openUpstreamHealth(store, healthPolicy(loaded.config.upstream_health), systemClock, { log });
}

/** The loaded setup's plugins and HTTP server on `store`, listening; resolves with the origin. */
async function serve(loaded: GatewaySetup, parts: Omit<GatewayOptions, 'config' | 'plugins' | 'env'>): Promise<{ gateway: Gateway; origin: string }> {
  const { config } = loaded;
  const gateway = await createGateway({ ...parts, config, plugins: loaded.plugins, env: loaded.env });
  return { gateway, origin: await gateway.listen(config.server.port, config.server.host) };
}

/** `npm start` with one worker: exactly the single process it always was. */
export async function runSingle(loaded: GatewaySetup): Promise<void> {
  const { config } = loaded;
  const log = createLogger(config.log.level);
  const catalogue = loadCatalogue(loaded.cataloguePath);
  const simulators = await startSimulatorsForMissingCredentials(config, loaded.vendors, log);
  const store = await openInstanceStore(loaded, log);
  // Before the gateway is built: its admin routes take the admin token's hash as it is then.
  const secrets = await firstStart(store, new KeyService(store, catalogue, systemClock), config, log, systemClock.now());
  const health = await openInstanceHealth(loaded, store, log);
  const { gateway, origin } = await serve(loaded, { catalogue, store, log, simulatedFamilies: simulators.families, health });
  log.info(
    { origin, config: loaded.file, env_overrides: loaded.overrides, plugins: gateway.chain.names, database: describeDatabase(config.database) },
    'gateway listening',
  );
  // Secrets of the first start go to the terminal once, never into the structured log.
  if (secrets.adminToken || secrets.firstKey) process.stdout.write(bootstrapBanner(secrets, origin));
  closeOnSignals(log, async () => {
    await gateway.close();
    await Promise.all(simulators.servers.map((sim) => sim.close()));
  });
  reloadOnHangup(() => reloadDeployments(loaded.file, process.env, (upstreams) => gateway.reloadDeployments(upstreams), log));
}

/**
 * A worker forked by the primary (src/cluster/primary.ts): its own config, plugins and store
 * connection under the instance id of its slot; the primary's simulators; no first-start work
 * (the primary did it); `/metrics` answers for the whole group.
 */
export async function runWorker(configFile: string, env: Env, slot: number): Promise<void> {
  const loaded = await loadSetup(configFile, env, {
    edit: (config) => {
      config.server.instance_id = workerInstanceId(config.server.instance_id, slot);
    },
  });
  const { config } = loaded;
  const log = createLogger(config.log.level).child({ worker: slot });
  const metrics = new WorkerMetrics();
  const simulatedFamilies = adoptSimulators(config, env[WORKER_SIMULATORS_ENV]);
  const store = await openInstanceStore(loaded, log);
  const catalogue = loadCatalogue(loaded.cataloguePath);
  const health = await openInstanceHealth(loaded, store, log);
  const { gateway, origin } = await serve(loaded, { catalogue, store, log, simulatedFamilies, scrapeMetrics: metrics.scrape, health });
  metrics.serve(gateway.metrics);
  log.info({ origin, instance: config.server.instance_id, pid: process.pid }, 'worker listening');
  const listening: ListeningMessage = { type: 'gateway:listening', origin };
  cluster.worker?.send(listening);
  closeOnSignals(log, () => gateway.close());
  reloadOnHangup(() => reloadDeployments(configFile, env, (upstreams) => gateway.reloadDeployments(upstreams), log));
}

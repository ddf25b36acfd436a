import { adminTokenHash, bootstrap, bootstrapBanner } from './bootstrap.js';
import { loadCatalogue } from './catalogue/catalogue.js';
import { systemClock } from './clock.js';
import { BootError } from './config/boot-error.js';
import { createGateway } from './gateway.js';
import { KeyService } from './keys/key-service.js';
import { createLogger } from './log.js';
import { loadSetup } from './setup.js';
import { startSimulatorsForMissingCredentials } from './simulators/start-simulators.js';
import { describeDatabase, openStore } from './store/open-store.js';

/** `npm start`: config from GATEWAY_CONFIG (default config/gateway.yaml) with env overrides. */
async function main(): Promise<void> {
  const env = process.env;
  const loaded = await loadSetup(env['GATEWAY_CONFIG'] ?? 'config/gateway.yaml', env);
  const { config } = loaded;
  const log = createLogger(config.log.level);
  const catalogue = loadCatalogue(loaded.cataloguePath);
  const simulators = await startSimulatorsForMissingCredentials(config, loaded.vendors, log);
  const store = await openStore(config.database, {
    onBackgroundError: (error) => log.warn({ err: error }, 'database connection lost; a new one is opened'),
    onMigrated: (versions) => log.info({ versions }, 'database migrations applied'),
  });
  const secrets = await bootstrap(store, new KeyService(store, catalogue, systemClock), config.admin.token, systemClock.now());
  if (!(await adminTokenHash(store, config.admin.token))) {
    log.warn('no admin token: set GATEWAY_ADMIN_TOKEN to use /admin/v1');
  }
  const gateway = await createGateway({ config, plugins: loaded.plugins, catalogue, store, log, simulatedFamilies: simulators.families });
  const origin = await gateway.listen(config.server.port, config.server.host);
  log.info(
    { origin, config: loaded.file, env_overrides: loaded.overrides, plugins: gateway.chain.names, database: describeDatabase(config.database) },
    'gateway listening',
  );
  // Secrets of the first start go to the terminal once, never into the structured log.
  if (secrets.adminToken || secrets.firstKey) process.stdout.write(bootstrapBanner(secrets, origin));

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'signal received');
    gateway
      .close()
      .then(() => Promise.all(simulators.servers.map((sim) => sim.close())))
      // The log is written asynchronously: what is still buffered goes out before the exit.
      .then(() => new Promise<void>((resolve) => log.flush(() => resolve())))
      .then(() => process.exit(0))
      .catch((error: unknown) => {
        log.error({ err: error }, 'shutdown failed');
        process.exit(1);
      });
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  // Configuration mistakes get one clear line naming the file and path, not a stack trace.
  if (error instanceof BootError) {
    process.stderr.write(`gateway: ${error.message}\n`);
  } else {
    process.stderr.write(`gateway: failed to start: ${(error as Error).stack ?? String(error)}\n`);
  }
  process.exit(1);
});

import { bootstrapBanner, firstStart } from '../bootstrap.js';
import { loadCatalogue } from '../catalogue/catalogue.js';
import { systemClock } from '../clock.js';
import { KeyService } from '../keys/key-service.js';
import { createLogger } from '../log.js';
import { closeOnSignals } from '../process-signals.js';
import type { GatewaySetup } from '../setup.js';
import { startSimulatorsForMissingCredentials } from '../simulators/start-simulators.js';
import { describeDatabase, openStore } from '../store/open-store.js';
import { checkWorkerInstanceIds, simulatorsEnv, WORKER_SIMULATORS_ENV } from './protocol.js';
import { WorkerSupervisor } from './supervisor.js';

/** Beyond the workers' own drain bound (shutdown_grace_ms): the cut calls' completions (5 s at most), closing plugins and the store. */
const STOP_MARGIN_MS = 10_000;

/**
 * The primary of GATEWAY_WORKERS > 1: serves no request itself. Once, for the whole group: the
 * simulators of families without a credential, the database's migrations and first-start
 * secrets (its own store connection, closed before the workers open theirs), the banner. Then it
 * forks the workers, replaces those that die, sums their metrics for /metrics, and on SIGTERM or
 * SIGINT has every worker drain before it exits.
 */
export async function runPrimary(loaded: GatewaySetup, count: number): Promise<void> {
  const { config } = loaded;
  checkWorkerInstanceIds(config, loaded.file, count);
  const log = createLogger(config.log.level);
  const catalogue = loadCatalogue(loaded.cataloguePath);
  const simulators = await startSimulatorsForMissingCredentials(config, loaded.vendors, log);
  const closeSimulators = async (): Promise<void> => {
    await Promise.all(simulators.servers.map((sim) => sim.close()));
  };
  const supervisor = new WorkerSupervisor({
    count,
    log,
    env: { [WORKER_SIMULATORS_ENV]: simulatorsEnv(config, simulators.families) },
    stopTimeoutMs: config.server.shutdown_grace_ms + STOP_MARGIN_MS,
  });
  try {
    const store = await openStore(config.database, { onMigrated: (versions, track) => log.info({ track, versions }, 'database migrations applied') });
    const secrets = await firstStart(store, new KeyService(store, catalogue, systemClock), config, log, systemClock.now()).finally(() => store.close());
    closeOnSignals(log, async () => {
      const clean = await supervisor.stop();
      await closeSimulators();
      if (!clean) throw new Error('a worker did not stop cleanly (see its log)');
      log.info('stopped');
    });
    // Each worker reloads its own deployment list (the simulators stay the primary's).
    process.on('SIGHUP', () => supervisor.signal('SIGHUP'));
    const origin = await supervisor.start();
    log.info(
      {
        origin,
        workers: count,
        config: loaded.file,
        env_overrides: loaded.overrides,
        plugins: loaded.plugins.map((p) => p.name),
        database: describeDatabase(config.database),
      },
      'gateway listening',
    );
    if (secrets.adminToken || secrets.firstKey) process.stdout.write(bootstrapBanner(secrets, origin));
  } catch (error) {
    await closeSimulators();
    throw error;
  }
}

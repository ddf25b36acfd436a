import cluster from 'node:cluster';
import { runPrimary } from './cluster/primary.js';
import { workerCount, workerSlot } from './cluster/protocol.js';
import { WorkerStartError } from './cluster/supervisor.js';
import { BootError } from './config/boot-error.js';
import { runSingle, runWorker } from './instance.js';
import { loadSetup } from './setup.js';

/**
 * `npm start`: config from GATEWAY_CONFIG (default config/gateway.yaml) with env overrides,
 * validated before anything starts. One worker (the default): this process is the gateway.
 * Several (GATEWAY_WORKERS): this process is their primary (src/cluster/primary.ts), and each
 * worker, forked from this same file, is a whole gateway instance.
 */
async function main(): Promise<void> {
  const env = process.env;
  const file = env['GATEWAY_CONFIG'] ?? 'config/gateway.yaml';
  const slot = workerSlot(env, cluster.isWorker);
  if (slot !== null) return runWorker(file, env, slot);
  const loaded = await loadSetup(file, env);
  const workers = workerCount(loaded.config);
  return workers > 1 ? runPrimary(loaded, workers) : runSingle(loaded);
}

main().catch((error: unknown) => {
  // Configuration mistakes get one clear line naming the file and path, not a stack trace.
  if (error instanceof BootError) {
    process.stderr.write(`gateway: ${error.message}\n`);
  } else if (error instanceof WorkerStartError) {
    // The worker's own line said why; say more only if it could not (killed by a signal).
    if (!error.reported) process.stderr.write(`gateway: ${error.message}\n`);
  } else {
    process.stderr.write(`gateway: failed to start: ${(error as Error).stack ?? String(error)}\n`);
  }
  process.exit(1);
});

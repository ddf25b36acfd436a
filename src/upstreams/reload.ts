import type { Logger } from 'pino';
import type { Env } from '../config/load.js';
import type { GatewayConfig } from '../config/schema.js';
import { loadSetup } from '../setup.js';

/**
 * SIGHUP: the deployment lists are read again from the config file and the environment and put
 * in force (docs/deployments.md#reload). Only `upstreams` is reloaded; a list that does not load
 * is logged and the one in force kept. Calls in flight keep the deployment they hold.
 */
export async function reloadDeployments(file: string, env: Env, apply: (upstreams: GatewayConfig['upstreams']) => void, log: Logger): Promise<boolean> {
  try {
    const { config } = await loadSetup(file, env);
    apply(config.upstreams);
    log.info({ config: file }, 'upstream deployments reloaded');
    return true;
  } catch (error) {
    log.error(
      { err: error instanceof Error ? error.message : String(error) },
      'upstream deployments not reloaded: the config does not load; the list in force is kept',
    );
    return false;
  }
}

/** Runs `reload` on each SIGHUP, one at a time (a SIGHUP during a reload runs one more after it). */
export function reloadOnHangup(reload: () => Promise<unknown>): void {
  let running: Promise<unknown> | null = null;
  let again = false;
  const run = (): void => {
    if (running) {
      again = true;
      return;
    }
    running = reload().finally(() => {
      running = null;
      if (again) {
        again = false;
        run();
      }
    });
  };
  process.on('SIGHUP', run);
}

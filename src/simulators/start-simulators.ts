import type { Logger } from 'pino';
import type { Family, GatewayConfig } from '../config/schema.js';
import { createAlphaSimulator } from './alpha-sim.js';
import { createBetaSimulator } from './beta-sim.js';
import { createGammaSimulator } from './gamma-sim.js';
import type { SimServer } from './sim-server.js';

/** Simulator factories by family. */
const SIMULATORS: Record<Family, () => SimServer> = {
  alpha: () => createAlphaSimulator(),
  beta: () => createBetaSimulator(),
  gamma: () => createGammaSimulator(),
};

export interface StartedSimulators {
  families: Family[];
  servers: SimServer[];
}

/**
 * For every family with no credential configured, starts its simulator on loopback and points
 * the family's base URL at it, so a fresh checkout answers with no vendor accounts. Mutates
 * `config.upstreams`; logs each substitution at warn, loudly.
 */
export async function startSimulatorsForMissingCredentials(config: GatewayConfig, log: Logger): Promise<StartedSimulators> {
  const started: StartedSimulators = { families: [], servers: [] };
  for (const [family, create] of Object.entries(SIMULATORS) as Array<[Family, () => SimServer]>) {
    if (config.upstreams[family].api_key) continue;
    const sim = create();
    const url = await sim.listen(0, '127.0.0.1');
    config.upstreams[family].base_url = url;
    started.families.push(family);
    started.servers.push(sim);
    log.warn(
      { family, simulator: url },
      `SIMULATOR: no ${family.toUpperCase()}_API_KEY is set, so the ${family} family is answered by the built-in simulator at ${url}, not by the real vendor`,
    );
  }
  return started;
}

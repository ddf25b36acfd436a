import type { Logger } from 'pino';
import type { GatewayConfig } from '../config/schema.js';
import { upstreamEnvNames, type VendorDeclaration } from '../vendors/vendor.js';
import type { SimServer } from './sim-server.js';

export interface StartedSimulators {
  families: string[];
  servers: SimServer[];
}

/**
 * For every vendor family with no credential configured, starts the simulator its plugin
 * declares on loopback and points the family's base URL at it, so a fresh checkout answers with
 * no vendor accounts. A family configured as a list of deployments is used as listed (its
 * deployments may point at anything, with or without a credential). Mutates `config.upstreams`;
 * logs each substitution at warn, loudly.
 */
export async function startSimulatorsForMissingCredentials(
  config: GatewayConfig,
  vendors: readonly VendorDeclaration[],
  log: Logger,
): Promise<StartedSimulators> {
  const started: StartedSimulators = { families: [], servers: [] };
  for (const vendor of vendors) {
    const upstream = config.upstreams[vendor.family];
    if (!upstream || Array.isArray(upstream) || upstream.api_key) continue;
    const sim = await vendor.simulator();
    const url = await sim.listen(0, '127.0.0.1');
    upstream.base_url = url;
    started.families.push(vendor.family);
    started.servers.push(sim);
    log.warn(
      { family: vendor.family, simulator: url },
      `SIMULATOR: no ${upstreamEnvNames(vendor.family).apiKey} is set, so the ${vendor.family} family is answered by the built-in simulator at ${url}, not by the real vendor`,
    );
  }
  return started;
}

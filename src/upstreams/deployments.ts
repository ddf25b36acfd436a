import type { GatewayConfig, UpstreamHealthConfig } from '../config/schema.js';
import type { DeploymentLimits, DeploymentRef, HealthPolicy } from './health.js';

/** The deployment of a family configured in the single form (or by `<FAMILY>_BASE_URL`/`_API_KEY`). */
export const DEFAULT_DEPLOYMENT = 'default';

/** One upstream deployment of a family, settled from the config (docs/deployments.md). */
export interface Deployment {
  readonly family: string;
  readonly name: string;
  readonly baseUrl: string;
  /** The credential; never logged, listed or stored. */
  readonly apiKey: string | undefined;
  readonly weight: number;
  /** Null when the deployment declares neither `rpm` nor `tpm` (no headroom to take). */
  readonly limits: DeploymentLimits | null;
  /** Canonical model ids it serves; null: every model of the family. */
  readonly models: ReadonlySet<string> | null;
  /** What the shared health knows it by. */
  readonly ref: DeploymentRef;
}

/** Each family's deployments, in the config's order. */
export type DeploymentTable = ReadonlyMap<string, readonly Deployment[]>;

const NONE: readonly Deployment[] = [];

/** The table of `config.upstreams` once settled (src/vendors/upstreams.ts), for the families served. */
export function deploymentTable(upstreams: GatewayConfig['upstreams'], families: readonly string[]): DeploymentTable {
  const table = new Map<string, Deployment[]>();
  for (const family of families) {
    const entry = upstreams[family];
    if (!entry) continue;
    const list = Array.isArray(entry) ? entry : [{ name: DEFAULT_DEPLOYMENT, base_url: entry.base_url, api_key: entry.api_key, weight: 1 }];
    table.set(
      family,
      list.map((d) => {
        const limits = d.rpm !== undefined || d.tpm !== undefined ? { ...(d.rpm ? { rpm: d.rpm } : {}), ...(d.tpm ? { tpm: d.tpm } : {}) } : null;
        return {
          family,
          name: d.name,
          baseUrl: d.base_url,
          apiKey: d.api_key,
          weight: d.weight,
          limits,
          models: d.models ? new Set(d.models) : null,
          ref: { family, deployment: d.name },
        };
      }),
    );
  }
  return table;
}

/**
 * The deployments in force: replaced whole by a reload (SIGHUP), so a call in flight keeps the
 * deployment object it chose while new calls see the new list.
 */
export class Deployments {
  private table: DeploymentTable;
  private secrets: readonly string[];

  constructor(table: DeploymentTable) {
    this.table = table;
    this.secrets = credentialsOf(table);
  }

  of(family: string): readonly Deployment[] {
    return this.table.get(family) ?? NONE;
  }

  /** The credential of a family's deployment; without a name, the family's first deployment's. */
  credential(family: string, name?: string | null): string | undefined {
    const list = this.of(family);
    if (name === undefined || name === null) return list[0]?.apiKey;
    // A loop, not find(): read once per attempt, on the hot path.
    for (const deployment of list) if (deployment.name === name) return deployment.apiKey;
    return undefined;
  }

  /** The base URL of a family's deployment, or undefined for a name the family does not have. */
  baseUrl(family: string, name: string): string | undefined {
    for (const deployment of this.of(family)) if (deployment.name === name) return deployment.baseUrl;
    return undefined;
  }

  /** Every credential of every deployment: secrets a stored body must not keep in clear. */
  credentials(): readonly string[] {
    return this.secrets;
  }

  /** Whether any family has more than one deployment: a choice for the selection to make. */
  anyChoice(): boolean {
    for (const list of this.table.values()) if (list.length > 1) return true;
    return false;
  }

  all(): Deployment[] {
    return [...this.table.values()].flat();
  }

  replace(table: DeploymentTable): void {
    this.table = table;
    this.secrets = credentialsOf(table);
  }
}

function credentialsOf(table: DeploymentTable): string[] {
  return [...new Set([...table.values()].flatMap((list) => list.flatMap((deployment) => deployment.apiKey ?? [])))];
}

/** `upstream_health` of the config in the health's units. */
export const healthPolicy = (config: UpstreamHealthConfig): HealthPolicy => ({
  fails: config.fails,
  windowMs: config.window_s * 1000,
  cooldownMs: config.cooldown_s * 1000,
});

import type { Catalogue } from '../catalogue/catalogue.js';
import type { Env } from '../config/load.js';
import { deploymentListSchema, upstreamSchema, type DeploymentConfig, type GatewayConfig, type UpstreamConfig } from '../config/schema.js';
import { compileValidator, ValidationError } from '../config/validate.js';
import { FAMILY_NAME, upstreamEnvNames, type VendorDeclaration } from './vendor.js';

const validateUpstream = compileValidator<UpstreamConfig>(upstreamSchema, 'upstream');
const validateDeployments = compileValidator<DeploymentConfig[]>(deploymentListSchema, 'upstream');

/**
 * Settles `config.upstreams` against the vendor plugins the YAML enables: one entry per
 * declared family, from the file, else the vendor's default origin. The single form takes
 * `<FAMILY>_BASE_URL` and `<FAMILY>_API_KEY` from the environment (they win); the list form
 * (docs/deployments.md) takes each deployment's credential from the variable its `api_key_env`
 * names, and is a mistake beside those two variables. An entry for a family no enabled vendor
 * declares is a mistake in the file. `catalogue` is read only when a deployment lists `models`.
 * Returns the env variables that applied (for the start log).
 */
export function settleUpstreams(config: GatewayConfig, file: string, vendors: readonly VendorDeclaration[], env: Env, catalogue: () => Catalogue): string[] {
  const families = new Set(vendors.map((vendor) => vendor.family));
  for (const family of Object.keys(config.upstreams)) {
    if (!families.has(family)) {
      throw new ValidationError(
        file,
        `/upstreams/${family}`,
        `names a family that no enabled vendor plugin declares (enabled: ${[...families].join(', ') || 'none'})`,
      );
    }
  }
  const applied: string[] = [];
  for (const vendor of vendors) {
    if (!FAMILY_NAME.test(vendor.family))
      throw new ValidationError(file, '/plugins', `a vendor plugin declares the family "${vendor.family}", which is not a valid family name`);
    const entry = config.upstreams[vendor.family];
    config.upstreams[vendor.family] = Array.isArray(entry)
      ? settleList(vendor.family, entry, file, env, catalogue)
      : settleSingle(vendor, entry, file, env, applied);
  }
  return applied;
}

/** Re-throws a validator's error under the family's entry in the file. */
function underEntry<T>(file: string, family: string, check: () => T, via = ''): T {
  try {
    return check();
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(file, `/upstreams/${family}${error.path === '/' ? '' : error.path}`, `${error.detail}${via}`);
  }
}

function settleSingle(vendor: VendorDeclaration, entry: UpstreamConfig | undefined, file: string, env: Env, applied: string[]): UpstreamConfig {
  const names = upstreamEnvNames(vendor.family);
  const upstream: Record<string, unknown> = { base_url: vendor.defaultBaseUrl, ...entry };
  const mine: string[] = [];
  for (const [field, name] of [
    ['base_url', names.baseUrl],
    ['api_key', names.apiKey],
  ] as const) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    upstream[field] = value;
    mine.push(name);
  }
  applied.push(...mine);
  const via = applied.length ? ` (env overrides applied: ${applied.join(', ')})` : '';
  return underEntry(file, vendor.family, () => validateUpstream(upstream), via);
}

function settleList(family: string, entry: unknown[], file: string, env: Env, catalogue: () => Catalogue): DeploymentConfig[] {
  const names = upstreamEnvNames(family);
  for (const name of [names.baseUrl, names.apiKey]) {
    const value = env[name];
    if (value !== undefined && value !== '') {
      throw new ValidationError(file, `/upstreams/${family}`, `is a list of deployments, so ${name} must not be set (give each deployment its api_key_env)`);
    }
  }
  const list = underEntry(file, family, () => validateDeployments(entry));
  const seen = new Set<string>();
  list.forEach((deployment, index) => {
    const at = `/upstreams/${family}/${index}`;
    if (seen.has(deployment.name)) throw new ValidationError(file, `${at}/name`, `"${deployment.name}" is already the name of another ${family} deployment`);
    seen.add(deployment.name);
    if (deployment.api_key_env !== undefined) {
      const key = env[deployment.api_key_env];
      if (key === undefined || key === '') throw new ValidationError(file, `${at}/api_key_env`, `names ${deployment.api_key_env}, which is not set`);
      deployment.api_key = key;
    }
    deployment.models = deployment.models?.map((id, m) => {
      const model = catalogue().resolve(id);
      if (model?.family !== family) throw new ValidationError(file, `${at}/models/${m}`, `"${id}" is not a model of the ${family} family in the catalogue`);
      return model.id;
    });
    if (deployment.models === undefined) delete deployment.models;
  });
  return list;
}

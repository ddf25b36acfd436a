import type { Env } from '../config/load.js';
import { upstreamSchema, type GatewayConfig, type UpstreamConfig } from '../config/schema.js';
import { compileValidator, ValidationError } from '../config/validate.js';
import { FAMILY_NAME, upstreamEnvNames, type VendorDeclaration } from './vendor.js';

const validateUpstream = compileValidator<UpstreamConfig>(upstreamSchema, 'upstream');

/**
 * Settles `config.upstreams` against the vendor plugins the YAML enables: one entry per
 * declared family, from the file, else the vendor's default origin, with `<FAMILY>_BASE_URL`
 * and `<FAMILY>_API_KEY` from the environment winning. An entry for a family no enabled vendor
 * declares is a mistake in the file. Returns the env variables that applied (for the start log).
 */
export function settleUpstreams(config: GatewayConfig, file: string, vendors: readonly VendorDeclaration[], env: Env): string[] {
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
    const names = upstreamEnvNames(vendor.family);
    const upstream: Record<string, unknown> = { base_url: vendor.defaultBaseUrl, ...config.upstreams[vendor.family] };
    for (const [field, name] of [
      ['base_url', names.baseUrl],
      ['api_key', names.apiKey],
    ] as const) {
      const value = env[name];
      if (value === undefined || value === '') continue;
      upstream[field] = value;
      applied.push(name);
    }
    try {
      config.upstreams[vendor.family] = validateUpstream(upstream);
    } catch (error) {
      if (!(error instanceof ValidationError)) throw error;
      const via = applied.length ? ` (env overrides applied: ${applied.join(', ')})` : '';
      throw new ValidationError(file, `/upstreams/${vendor.family}${error.path === '/' ? '' : error.path}`, `${error.detail}${via}`);
    }
  }
  return applied;
}

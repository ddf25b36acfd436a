import type { SimServer } from '../simulators/sim-server.js';

/**
 * What a vendor plugin declares about the family it serves, read before any plugin is set up:
 * the config's `upstreams`, the catalogue's `families`, the env overrides and the simulators of
 * `npm start` are all derived from the vendor plugins the YAML enables. Adding a vendor is a
 * plugin folder, catalogue entries and a YAML line; nothing in core names a family.
 */
export interface VendorDeclaration {
  /** The family's name, as the catalogue and `upstreams` name it: lower-case letters, digits and dashes. */
  readonly family: string;
  /** The vendor's own origin (optionally with a path prefix), used when the config names none. */
  readonly defaultBaseUrl: string;
  /** The built-in simulator of this vendor's wire format, for a family with no credential configured. */
  simulator(): SimServer | Promise<SimServer>;
}

export const FAMILY_NAME = /^[a-z][a-z0-9-]{0,39}$/;

/** The env prefix of a family: `alpha` → `ALPHA` (`ALPHA_BASE_URL`, `ALPHA_API_KEY`). */
export const envPrefix = (family: string): string => family.toUpperCase().replace(/-/g, '_');

/** The env variables that override a family's upstream: base URL and credential. */
export function upstreamEnvNames(family: string): { baseUrl: string; apiKey: string } {
  const prefix = envPrefix(family);
  return { baseUrl: `${prefix}_BASE_URL`, apiKey: `${prefix}_API_KEY` };
}

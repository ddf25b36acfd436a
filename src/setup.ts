import { loadCatalogue, type Catalogue } from './catalogue/catalogue.js';
import { PluginConfigError, resolvePlugins, type ResolvedPlugin } from './chain/resolve-plugins.js';
import type { Plugin } from './chain/plugin.js';
import { loadConfig, type Env, type LoadedConfig } from './config/load.js';
import type { GatewayConfig } from './config/schema.js';
import { settleUpstreams } from './vendors/upstreams.js';
import type { VendorDeclaration } from './vendors/vendor.js';

/** A loaded configuration with its plugins resolved and its vendors' upstreams settled. */
export interface GatewaySetup extends LoadedConfig {
  /** The enabled plugins, in chain order, not yet set up. */
  plugins: ResolvedPlugin[];
  /** The families the enabled vendor plugins declare, in chain order. */
  vendors: VendorDeclaration[];
  /** The environment the config was loaded with: what the plugins read their own variables from (`PluginContext.env`). */
  env: Env;
}

export interface SetupOptions {
  /** Edits the loaded config before its plugins are resolved (an embedding program's or a test's overrides). */
  edit?: (config: GatewayConfig) => void;
  /** Plugins registered by name by an embedding program, found before the plugins/ folder. */
  registered?: Readonly<Record<string, Plugin>>;
}

/**
 * Everything that is known before a plugin runs: the YAML with its env overrides, the plugin
 * modules of the list, the vendor families they declare, and each family's upstream. Every
 * mistake is a BootError naming the file and the path at fault.
 */
export async function loadSetup(file: string, env: Env, options: SetupOptions = {}): Promise<GatewaySetup> {
  const loaded = loadConfig(file, env);
  options.edit?.(loaded.config);
  const plugins = await resolvePlugins(loaded.config.plugins, loaded.file, options.registered);
  const vendors: VendorDeclaration[] = [];
  for (const { plugin, where } of plugins) {
    if (!plugin.vendor) continue;
    const twin = vendors.find((vendor) => vendor.family === plugin.vendor?.family);
    if (twin) throw new PluginConfigError(`${where}: plugin "${plugin.name}" declares the family "${twin.family}", which another plugin already serves`);
    vendors.push(plugin.vendor);
  }
  let catalogue: Catalogue | undefined;
  const overrides = settleUpstreams(loaded.config, loaded.file, vendors, env, () => (catalogue ??= loadCatalogue(loaded.cataloguePath)));
  return { ...loaded, overrides: [...loaded.overrides, ...overrides], plugins, vendors, env };
}

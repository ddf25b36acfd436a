import { access } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { PluginEntry } from '../config/schema.js';
import { compileValidator } from '../config/validate.js';
import type { LoadedPlugin } from './chain.js';
import type { Plugin, PluginContext } from './plugin.js';

/** plugins/<name>/index.(ts|js), next to src/ both in the source tree and in dist/. */
const PLUGINS_ROOT = new URL('../../plugins/', import.meta.url);

export class PluginConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PluginConfigError';
  }
}

function isPlugin(value: unknown): value is Plugin {
  const candidate = value as Partial<Plugin> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.name === 'string' && typeof candidate.setup === 'function';
}

async function importPlugin(name: string, where: string): Promise<Plugin> {
  const url = new URL(`${name}/index.js`, PLUGINS_ROOT);
  const source = new URL(`${name}/index.ts`, PLUGINS_ROOT);
  const exists = await Promise.any([access(url), access(source)]).then(
    () => true,
    () => false,
  );
  if (!exists) throw new PluginConfigError(`${where}: no plugin named "${name}" (expected ${fileURLToPath(source)})`);
  const module = (await import(url.href)) as { default?: unknown };
  if (!isPlugin(module.default)) throw new PluginConfigError(`${where}: plugins/${name} does not export a plugin as default`);
  if (module.default.name !== name) {
    throw new PluginConfigError(`${where}: plugins/${name} calls itself "${module.default.name}"`);
  }
  return module.default;
}

/**
 * Imports the enabled plugins in config order (an embedding program may register plugins by
 * name; config still decides whether and where they run), validates each one's config against its own
 * schema, checks `after` constraints and runs setup. Errors name the YAML path at fault.
 */
export async function loadPlugins(
  entries: readonly PluginEntry[],
  context: (plugin: string) => PluginContext,
  /** Plugins given by an embedding program, found by name before the plugins/ folder. */
  registered: Readonly<Record<string, Plugin>> = {},
): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  const seen = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    const where = `config /plugins/${index}`;
    if (!entry.enabled) continue;
    if (seen.has(entry.name)) throw new PluginConfigError(`${where}: plugin "${entry.name}" is listed twice`);
    const plugin = registered[entry.name] ?? (await importPlugin(entry.name, where));
    for (const earlier of plugin.after ?? []) {
      if (!seen.has(earlier)) {
        throw new PluginConfigError(`${where}: plugin "${entry.name}" must come after "${earlier}" in the plugin list`);
      }
    }
    if (!plugin.configSchema && Object.keys(entry.config).length > 0) {
      throw new PluginConfigError(`${where}/config: plugin "${entry.name}" takes no config`);
    }
    const config = plugin.configSchema
      ? compileValidator<Record<string, unknown>>(plugin.configSchema, `${where}/config`)(entry.config)
      : entry.config;
    const hooks = await plugin.setup(context(entry.name), config);
    loaded.push({ name: entry.name, hooks });
    seen.add(entry.name);
  }
  return loaded;
}

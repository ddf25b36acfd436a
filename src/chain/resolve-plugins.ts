import { access } from 'node:fs/promises';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BootError } from '../config/boot-error.js';
import type { PluginEntry } from '../config/schema.js';
import { compileValidator } from '../config/validate.js';
import type { Plugin } from './plugin.js';

/** plugins/<name>/index.(ts|js), next to src/ both in the source tree and in dist/. */
const PLUGINS_ROOT = new URL('../../plugins/', import.meta.url);

/** A plugin-list mistake (unknown plugin, wrong order, bad config): one line naming the YAML path. */
export class PluginConfigError extends BootError {
  constructor(message: string) {
    super(message);
    this.name = 'PluginConfigError';
  }
}

/** An enabled plugin of the YAML list: its module, its validated config, and where the YAML names it. */
export interface ResolvedPlugin {
  readonly name: string;
  readonly plugin: Plugin;
  readonly config: Record<string, unknown>;
  /** `config /plugins/3`, for errors that name the YAML entry. */
  readonly where: string;
}

function isPlugin(value: unknown): value is Plugin {
  const candidate = value as Partial<Plugin> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.name === 'string' && typeof candidate.setup === 'function';
}

/** The folder a plugin lives in: `plugins/<name>/`, or the entry's own `path` (relative to the config file). */
function folderOf(entry: PluginEntry, configDir: string): URL {
  if (entry.path === undefined) return new URL(`${entry.name}/`, PLUGINS_ROOT);
  const folder = isAbsolute(entry.path) ? entry.path : resolvePath(configDir, entry.path);
  return pathToFileURL(`${folder}/`);
}

async function importPlugin(entry: PluginEntry, where: string, configDir: string): Promise<Plugin> {
  const folder = folderOf(entry, configDir);
  const url = new URL('index.js', folder);
  const source = new URL('index.ts', folder);
  const found = await Promise.any([access(url).then(() => url), access(source).then(() => source)]).catch(() => null);
  if (!found) throw new PluginConfigError(`${where}: no plugin named "${entry.name}" (expected ${fileURLToPath(source)})`);
  const module = (await import(found.href)) as { default?: unknown };
  if (!isPlugin(module.default)) throw new PluginConfigError(`${where}: ${fileURLToPath(found)} does not export a plugin as default`);
  if (module.default.name !== entry.name) throw new PluginConfigError(`${where}: ${fileURLToPath(found)} calls itself "${module.default.name}"`);
  return module.default;
}

/** `after` names plugins that must stand earlier in the list, `before` plugins that must stand later. */
function checkOrder(resolved: readonly ResolvedPlugin[]): void {
  const position = new Map(resolved.map((p, i) => [p.name, i]));
  resolved.forEach((p, i) => {
    for (const earlier of p.plugin.after ?? []) {
      if ((position.get(earlier) ?? Infinity) > i) {
        throw new PluginConfigError(`${p.where}: plugin "${p.name}" must come after "${earlier}" in the plugin list`);
      }
    }
    for (const later of p.plugin.before ?? []) {
      if ((position.get(later) ?? -1) < i) {
        throw new PluginConfigError(`${p.where}: plugin "${p.name}" needs "${later}" listed after it in the plugin list`);
      }
    }
  });
}

/**
 * Imports the enabled plugins in config order (an embedding program may register plugins by
 * name; the YAML still decides whether and where they run), validates each one's config
 * against its own schema, and checks the `after`/`before` constraints. Nothing is set up yet:
 * what plugins declare statically (their vendor family, say) is known before any of them runs.
 */
export async function resolvePlugins(
  entries: readonly PluginEntry[],
  configDir: string,
  registered: Readonly<Record<string, Plugin>> = {},
): Promise<ResolvedPlugin[]> {
  const resolved: ResolvedPlugin[] = [];
  for (const [index, entry] of entries.entries()) {
    const where = `config /plugins/${index}`;
    if (!entry.enabled) continue;
    if (resolved.some((p) => p.name === entry.name)) throw new PluginConfigError(`${where}: plugin "${entry.name}" is listed twice`);
    const plugin = registered[entry.name] ?? (await importPlugin(entry, where, configDir));
    if (!plugin.configSchema && Object.keys(entry.config).length > 0) {
      throw new PluginConfigError(`${where}/config: plugin "${entry.name}" takes no config`);
    }
    const config = plugin.configSchema ? compileValidator<Record<string, unknown>>(plugin.configSchema, `${where}/config`)(entry.config) : entry.config;
    resolved.push({ name: entry.name, plugin, config, where });
  }
  checkOrder(resolved);
  return resolved;
}

import { access } from 'node:fs/promises';
import { dirname, isAbsolute, resolve as resolvePath } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { BootError } from '../config/boot-error.js';
import type { PluginEntry } from '../config/schema.js';
import { compileValidator, ValidationError } from '../config/validate.js';
import { factsProblem } from './plugin-facts.js';
import type { Plugin } from './plugin.js';

/** plugins/<name>/index.(ts|js), next to src/ both in the source tree and in dist/. */
const PLUGINS_ROOT = new URL('../../plugins/', import.meta.url);

/**
 * A plugin-list mistake (unknown plugin, wrong order, bad config): one line naming the YAML
 * file and path. Thrown by a plugin's own setup, its message starts with the path inside the
 * plugin's `config:` block (`/fallback/gamma/gamma-5.4: …`); the loader puts the file and entry first.
 */
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
  /** `<config file>: /plugins/3`, for errors that name the YAML entry. */
  readonly where: string;
}

function isPlugin(value: unknown): value is Plugin {
  const candidate = value as Partial<Plugin> | null;
  return typeof candidate === 'object' && candidate !== null && typeof candidate.name === 'string' && typeof candidate.setup === 'function';
}

/** The folder a plugin lives in: `plugins/<name>/`, or the entry's own `path` (relative to the config file). */
function folderOf(entry: PluginEntry, configFile: string): URL {
  if (entry.path === undefined) return new URL(`${entry.name}/`, PLUGINS_ROOT);
  const folder = isAbsolute(entry.path) ? entry.path : resolvePath(dirname(configFile), entry.path);
  return pathToFileURL(`${folder}/`);
}

async function importPlugin(entry: PluginEntry, where: string, configFile: string): Promise<Plugin> {
  const folder = folderOf(entry, configFile);
  const url = new URL('index.js', folder);
  const source = new URL('index.ts', folder);
  const exists = await Promise.any([access(url), access(source)]).then(
    () => true,
    () => false,
  );
  if (!exists) throw new PluginConfigError(`${where}: no plugin named "${entry.name}" (expected ${fileURLToPath(source)})`);
  // Always the .js URL: compiled, it is the file; from source, the TypeScript loader maps it to the .ts.
  const module = (await import(url.href)) as { default?: unknown };
  if (!isPlugin(module.default)) throw new PluginConfigError(`${where}: ${fileURLToPath(folder)} does not export a plugin as default`);
  if (module.default.name !== entry.name) throw new PluginConfigError(`${where}: ${fileURLToPath(folder)} calls itself "${module.default.name}"`);
  return module.default;
}

function validPluginConfig(schema: object, config: Record<string, unknown>, configFile: string, index: number): Record<string, unknown> {
  try {
    return compileValidator<Record<string, unknown>>(schema, 'plugin config')(config);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(configFile, `/plugins/${index}/config${error.path === '/' ? '' : error.path}`, error.detail);
  }
}

/**
 * Facts first (what each plugin provides and needs), then `after`, which names plugins that must
 * stand earlier in the list, and `before`, plugins that must stand later.
 */
function checkOrder(resolved: readonly ResolvedPlugin[]): void {
  const problem = factsProblem(resolved);
  if (problem) throw new PluginConfigError(problem);
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
 * against its own schema, and checks the order against the plugins' declared facts and their
 * `after`/`before` constraints. Nothing is set up yet:
 * what plugins declare statically (their vendor family, say) is known before any of them runs.
 */
export async function resolvePlugins(
  entries: readonly PluginEntry[],
  /** The YAML file listing them: errors name it, and entries' `path`s are relative to it. */
  configFile: string,
  registered: Readonly<Record<string, Plugin>> = {},
): Promise<ResolvedPlugin[]> {
  const resolved: ResolvedPlugin[] = [];
  for (const [index, entry] of entries.entries()) {
    const where = `${configFile}: /plugins/${index}`;
    if (!entry.enabled) continue;
    if (resolved.some((p) => p.name === entry.name)) throw new PluginConfigError(`${where}: plugin "${entry.name}" is listed twice`);
    const plugin = registered[entry.name] ?? (await importPlugin(entry, where, configFile));
    if (!plugin.configSchema && Object.keys(entry.config).length > 0) {
      throw new PluginConfigError(`${where}/config: plugin "${entry.name}" takes no config`);
    }
    const config = plugin.configSchema ? validPluginConfig(plugin.configSchema, entry.config, configFile, index) : entry.config;
    resolved.push({ name: entry.name, plugin, config, where });
  }
  checkOrder(resolved);
  return resolved;
}

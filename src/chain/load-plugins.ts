import type { LoadedPlugin } from './chain.js';
import type { PluginContext } from './plugin.js';
import type { ResolvedPlugin } from './resolve-plugins.js';

/** Runs each resolved plugin's setup, in chain order, with its own context and validated config. */
export async function setupPlugins(resolved: readonly ResolvedPlugin[], context: (plugin: string) => PluginContext): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  for (const { name, plugin, config, where } of resolved) {
    loaded.push({ name, where, hooks: await plugin.setup(context(name), config) });
  }
  return loaded;
}

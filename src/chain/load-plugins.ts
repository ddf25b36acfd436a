import type { LoadedPlugin } from './chain.js';
import type { Fact } from './phases.js';
import type { PluginContext, PluginHooks } from './plugin.js';
import { PluginConfigError, type ResolvedPlugin } from './resolve-plugins.js';

/**
 * Runs each resolved plugin's setup, in chain order, with its own context and validated config.
 * A plugin that refuses its config (a PluginConfigError whose message starts with the path
 * inside its config block) stops the start with the file and entry named first.
 */
export async function setupPlugins(resolved: readonly ResolvedPlugin[], context: (plugin: string) => PluginContext): Promise<LoadedPlugin[]> {
  const loaded: LoadedPlugin[] = [];
  for (const { name, plugin, config, where } of resolved) {
    let hooks: PluginHooks<Fact>;
    try {
      hooks = await plugin.setup(context(name), config);
    } catch (error) {
      if (error instanceof PluginConfigError) throw new PluginConfigError(`${where}/config${error.message}`);
      throw error;
    }
    loaded.push({ name, where, hooks, ...(plugin.provides ? { provides: plugin.provides } : {}), ...(plugin.needs ? { needs: plugin.needs } : {}) });
  }
  return loaded;
}

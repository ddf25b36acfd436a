import { FACT_NAMES, type Fact } from './phases.js';
import type { Plugin } from './plugin.js';

/** What the facts check needs of an enabled plugin. */
export interface FactDeclarer {
  readonly name: string;
  readonly plugin: Pick<Plugin, 'provides' | 'needs'>;
  /** `<config file>: /plugins/3`. */
  readonly where: string;
}

/**
 * Checks the configured order against what each plugin declares it provides and needs
 * (src/chain/phases.ts), as fastify checks a plugin's declared dependencies: every fact a plugin
 * needs is provided by exactly one plugin listed earlier. Returns the first mistake as one line
 * naming the plugins at fault, or null when the chain can work.
 */
export function factsProblem(plugins: readonly FactDeclarer[]): string | null {
  const providers = new Map<Fact, FactDeclarer>();
  for (const p of plugins) {
    for (const fact of p.plugin.provides ?? []) {
      const other = providers.get(fact);
      if (other) return `${p.where}: plugin "${p.name}" provides ${FACT_NAMES[fact]}, and so does "${other.name}" (${other.where}); enable one of them`;
      providers.set(fact, p);
    }
  }
  const position = new Map(plugins.map((p, i) => [p.name, i]));
  for (const [i, p] of plugins.entries()) {
    for (const fact of p.plugin.needs ?? []) {
      const provider = providers.get(fact);
      if (!provider) return `${p.where}: plugin "${p.name}" needs ${FACT_NAMES[fact]}, which no enabled plugin provides`;
      if (provider === p) return `${p.where}: plugin "${p.name}" both needs and provides ${FACT_NAMES[fact]}`;
      if ((position.get(provider.name) ?? Infinity) > i) {
        return `${p.where}: plugin "${p.name}" needs ${FACT_NAMES[fact]}, which "${provider.name}" provides, but "${provider.name}" is listed after it (${provider.where}); list "${p.name}" below "${provider.name}"`;
      }
    }
  }
  return null;
}

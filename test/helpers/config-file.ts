import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';

/** The part of config/gateway.yaml a test edits. */
interface ConfigDocument {
  catalogue: string;
  plugins: Array<{ name: string; config?: unknown }>;
}

/**
 * The repository's gateway.yaml with one plugin's `config:` block set, written to `dir` (the
 * catalogue path made absolute), for spawned gateways (GATEWAY_CONFIG). Returns the file's path.
 */
export function configFileWith(dir: string, plugin: string, settings: unknown): string {
  const config = parse(readFileSync('config/gateway.yaml', 'utf8')) as ConfigDocument;
  config.catalogue = resolve('config', config.catalogue);
  const entry = config.plugins.find((candidate) => candidate.name === plugin);
  if (!entry) throw new Error(`no ${plugin} in config/gateway.yaml`);
  entry.config = settings;
  const file = join(dir, 'gateway.yaml');
  writeFileSync(file, stringify(config));
  return file;
}

import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

/**
 * src/ and plugins/ transpiled to JavaScript once per test process (esbuild, file by file, no
 * bundling: plugins are still found by folder), for tests that start gateway processes often or
 * measure their memory: such a process starts in about a second, not after compiling TypeScript,
 * and its memory is the gateway's own, without a compiler's. The output lives in test-output/,
 * inside the repository so that node_modules resolve, and is removed when the process exits.
 */

let built: Promise<string> | undefined;

const sources = (root: string): string[] =>
  readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.d.ts') && !file.startsWith(join('dashboard', 'ui')))
    .map((file) => join(root, file));

/** The path of the compiled `src/main.js`. */
export function compiledGateway(): Promise<string> {
  built ??= (async () => {
    mkdirSync('test-output', { recursive: true });
    const outdir = mkdtempSync(join('test-output', 'gateway-js-'));
    process.once('exit', () => rmSync(outdir, { recursive: true, force: true }));
    await build({
      // With the in-process upstream health src/instance.ts opens until the store's is merged (docs/deployments.md).
      entryPoints: [...sources('src'), ...sources('plugins'), 'test/helpers/local-upstream-health.ts'],
      outdir,
      outbase: '.',
      format: 'esm',
      platform: 'node',
      target: 'node20',
      logLevel: 'error',
    });
    return join(outdir, 'src', 'main.js');
  })();
  return built;
}

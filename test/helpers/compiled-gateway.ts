import { mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

/**
 * The gateway's sources (src/, plugins/) transpiled once into a temp dir — file by file, as
 * tsc would emit them, with node_modules linked — so a test that starts several gateway
 * processes pays about a second per start instead of compiling through the TypeScript loader
 * in each process (15–25 s for three on a busy 2-core machine). Type checking is the suite's
 * typecheck's business, as for spawn-gateway.ts's transpile-only loader. Removed at teardown.
 */

type Teardown = { teardown(fn: () => unknown): void };

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'ui' ? [] : sources(path); // the dashboard's browser app is built separately
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The path of the transpiled `src/main.js`. */
export async function compiledGateway(t: Teardown): Promise<string> {
  const out = mkdtempSync(join(tmpdir(), 'gateway-compiled-'));
  t.teardown(() => rmSync(out, { recursive: true, force: true }));
  await build({
    entryPoints: [...sources('src'), ...sources('plugins')],
    outdir: out,
    outbase: '.',
    format: 'esm',
    platform: 'node',
    target: 'node20',
    logLevel: 'error',
  });
  writeFileSync(join(out, 'package.json'), '{"type":"module"}\n');
  symlinkSync(resolve('node_modules'), join(out, 'node_modules'), 'dir');
  return join(out, 'src', 'main.js');
}

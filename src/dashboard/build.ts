import { copyFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * `npm run build:dashboard`: bundles the dashboard (Preact, TypeScript) into
 * dist/dashboard/{index.html, assets/app.js, assets/app.css}. No CDN: the gateway serves
 * every asset itself. Paths are the package root's (npm runs scripts there), so the same code
 * works from src/ under the test loader and from dist/ after tsc.
 */
export const DASHBOARD_OUT = resolve('dist/dashboard');
const UI_SOURCE = resolve('src/dashboard/ui');

export async function buildDashboard(outDir = DASHBOARD_OUT): Promise<void> {
  const ui = UI_SOURCE;
  mkdirSync(join(outDir, 'assets'), { recursive: true });
  await build({
    entryPoints: { app: join(ui, 'main.tsx') },
    bundle: true,
    format: 'esm',
    target: ['es2022'],
    minify: true,
    sourcemap: false,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: join(outDir, 'assets'),
    logLevel: 'warning',
  });
  await build({ entryPoints: { app: join(ui, 'styles.css') }, bundle: true, minify: true, outdir: join(outDir, 'assets'), logLevel: 'warning' });
  copyFileSync(join(ui, 'index.html'), join(outDir, 'index.html'));
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await buildDashboard();
}

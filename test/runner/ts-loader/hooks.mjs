// Module hooks that run the TypeScript sources as they are: esbuild strips the types of a .ts
// file (no type check: `npm run typecheck` does that) with an inline source map, and an import of
// `./x.js` finds `./x.ts` (NodeNext's spelling). A plain ES module, since it is what loads the rest.
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath, URL } from 'node:url';
import { transformSync } from 'esbuild';

/** @type {import('node:module').ResolveHook} */
export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    if (!specifier.startsWith('.') || !specifier.endsWith('.js') || !context.parentURL) throw error;
    const source = new URL(`${specifier.slice(0, -3)}.ts`, context.parentURL);
    if (!existsSync(fileURLToPath(source))) throw error;
    return { url: source.href, shortCircuit: true };
  }
}

/** @type {import('node:module').LoadHook} */
export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  const file = fileURLToPath(url);
  const { code } = transformSync(readFileSync(file, 'utf8'), { loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline', sourcefile: file });
  return { format: 'module', source: code, shortCircuit: true };
}

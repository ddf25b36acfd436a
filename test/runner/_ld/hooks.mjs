import { transformSync } from 'esbuild';
import { readFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
export async function resolve(specifier, context, next) {
  try { return await next(specifier, context); } catch (error) {
    if (specifier.endsWith('.js') && context.parentURL) {
      const url = new URL(specifier.replace(/\.js$/, '.ts'), context.parentURL);
      if (existsSync(fileURLToPath(url))) return { url: url.href, shortCircuit: true };
    }
    throw error;
  }
}
export async function load(url, context, next) {
  if (url.endsWith('.ts') && url.startsWith('file:')) {
    const source = readFileSync(fileURLToPath(url), 'utf8');
    const { code } = transformSync(source, { loader: 'ts', format: 'esm', sourcemap: 'inline', sourcefile: fileURLToPath(url), target: 'node20' });
    return { format: 'module', source: code, shortCircuit: true };
  }
  return next(url, context);
}

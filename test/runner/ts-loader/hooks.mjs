// Module hooks that run the TypeScript sources as they are: esbuild strips the types of a .ts
// file (no type check: `npm run typecheck` does that) with an inline source map, and an import of
// `./x.js` finds `./x.ts` (NodeNext's spelling). A plain ES module, since it is what loads the rest.
//
// Every test process loads the same few hundred sources, and each esbuild call is a round trip to
// its service process: the stripped code is kept on disk (node_modules/.cache), keyed by the
// file's path and content, so that a run strips each source once, not once per process.
import { createHash } from 'node:crypto';
import { pid } from 'node:process';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL, URL } from 'node:url';
import { transformSync, version } from 'esbuild';

/**
 * Inline source maps keep stack traces and coverage on the .ts lines; without the sources in them
 * (the files are on disk), each is a fraction of the size every test process decodes.
 */
const OPTIONS = { loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline', sourcesContent: false };
const CACHE = fileURLToPath(new URL('../../../node_modules/.cache/ts-loader/', import.meta.url));
mkdirSync(CACHE, { recursive: true });

/** The URL of `specifier` if it names a file (relative, absolute, `file:`), else null (a package). */
function fileURL(specifier, parentURL) {
  if (specifier.startsWith('file:')) return new URL(specifier);
  if (specifier.startsWith('/')) return pathToFileURL(specifier);
  if (specifier.startsWith('.') && parentURL?.startsWith('file:')) return new URL(specifier, parentURL);
  return null;
}

/** @type {import('node:module').ResolveHook} */
export async function resolve(specifier, context, next) {
  // `x.js` whose source is `x.ts` is found without first failing Node's own lookup (not inside a
  // package: some ship their TypeScript sources beside the JavaScript).
  const url = specifier.endsWith('.js') ? fileURL(specifier, context.parentURL) : null;
  if (url && !url.pathname.includes('/node_modules/')) {
    const source = new URL(url.href.replace(/\.js$/, '.ts'));
    if (existsSync(fileURLToPath(source))) return { url: source.href, shortCircuit: true };
  }
  return next(specifier, context);
}

/** The stripped code of `file`, from the cache or esbuild (then cached: written whole, then renamed, as processes share it). */
function stripped(file) {
  const text = readFileSync(file, 'utf8');
  const cached = `${CACHE}${createHash('sha1')
    .update(`${version}\0${JSON.stringify(OPTIONS)}\0${file}\0${text}`)
    .digest('hex')}.js`;
  try {
    return readFileSync(cached, 'utf8');
  } catch {
    const { code } = transformSync(text, { ...OPTIONS, sourcefile: file });
    const partial = `${cached}.${pid}`;
    writeFileSync(partial, code);
    renameSync(partial, cached);
    return code;
  }
}

/** @type {import('node:module').LoadHook} */
export async function load(url, context, next) {
  if (!url.startsWith('file:') || !url.endsWith('.ts')) return next(url, context);
  return { format: 'module', source: stripped(fileURLToPath(url)), shortCircuit: true };
}

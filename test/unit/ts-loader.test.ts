import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import t from 'tap';

/** The tier runs' TypeScript hooks (test/runner/ts-loader/): types stripped by esbuild, `./x.js` found as `./x.ts`. */

interface Loaded {
  format: string;
  source: string | Uint8Array;
  shortCircuit?: boolean;
}
type Next<T> = (what: string, context: object) => Promise<T>;
interface Hooks {
  load(url: string, context: object, next: Next<Loaded>): Promise<Loaded>;
  resolve(specifier: string, context: { parentURL?: string }, next: Next<{ url: string }>): Promise<{ url: string }>;
}

const hooks = (await import(pathToFileURL('test/runner/ts-loader/hooks.mjs').href)) as Hooks;
const HERE = pathToFileURL('test/unit/ts-loader.test.ts').href;

t.test('a .ts module loads as an ES module without its types, with an inline source map', async (t) => {
  const url = pathToFileURL('test/runner/tiers.ts').href;
  const loaded = await hooks.load(url, {}, async () => {
    throw new Error('handed on');
  });
  t.equal(loaded.format, 'module');
  const source = String(loaded.source);
  t.match(source, /const TIERS = \{[\s\S]*export \{[\s\S]*TIERS/);
  t.notMatch(source, /: TierName|export type|interface Tier/, 'no type left');
  t.match(source, /\/\/# sourceMappingURL=data:application\/json;base64,/);
});

t.test('anything else is handed on unchanged', async (t) => {
  const json: Loaded = { format: 'json', source: '{}', shortCircuit: true };
  t.equal(await hooks.load('file:///x/data.json', {}, async () => json), json);
});

t.test('`./x.js` resolves to `./x.ts` when only the source is there; what is not there stays an error', async (t) => {
  const missing = async (): Promise<never> => {
    throw Object.assign(new Error('not found'), { code: 'ERR_MODULE_NOT_FOUND' });
  };
  const context = { parentURL: HERE };
  const resolved = await hooks.resolve('../runner/tiers.js', context, missing);
  t.equal(resolved.url, pathToFileURL('test/runner/tiers.ts').href);
  await t.rejects(hooks.resolve('../runner/none.js', context, missing), /not found/);
  await t.rejects(hooks.resolve('tap', context, missing), /not found/, 'a package is never guessed');
});

t.test('an absolute path or file URL to `x.js` resolves to `x.ts` too (the plugin loader imports by URL)', async (t) => {
  const missing = async (): Promise<never> => {
    throw Object.assign(new Error('not found'), { code: 'ERR_MODULE_NOT_FOUND' });
  };
  const source = pathToFileURL('test/runner/tiers.ts').href;
  const asJs = source.replace(/\.ts$/, '.js');
  t.equal((await hooks.resolve(asJs, {}, missing)).url, source, 'file: URL');
  t.equal((await hooks.resolve(fileURLToPath(asJs), {}, missing)).url, source, 'absolute path');
  const inPackage = pathToFileURL('node_modules/some-package/index.js').href;
  await t.rejects(hooks.resolve(inPackage, {}, missing), /not found/, 'never inside a package');
});

t.test('a source is stripped once: a later load of the same content comes from the cache, changed content does not', async (t) => {
  const dir = t.testdir({ 'same.ts': 'export const answer: number = 42;\n' });
  const url = pathToFileURL(`${dir}/same.ts`).href;
  const handedOn = async (): Promise<never> => {
    throw new Error('handed on');
  };
  const first = String((await hooks.load(url, {}, handedOn)).source);
  t.match(first, /const answer = 42;/);
  const cacheDir = 'node_modules/.cache/ts-loader';
  const entry = readdirSync(cacheDir).find((name) => readFileSync(join(cacheDir, name), 'utf8') === first);
  if (!entry) return t.fail('the stripped code is in the cache');
  t.teardown(() => rmSync(join(cacheDir, entry), { force: true }));
  writeFileSync(join(cacheDir, entry), 'export const answer = "from the cache";');
  t.equal(String((await hooks.load(url, {}, handedOn)).source), 'export const answer = "from the cache";', 'unchanged: the cached code');
  writeFileSync(`${dir}/same.ts`, 'export const answer: number = 43;\n');
  t.match(String((await hooks.load(url, {}, handedOn)).source), /const answer = 43;/, 'changed: stripped again');
});

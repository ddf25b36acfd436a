import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';

/** Every .ts file under a folder, recursively. */
function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sources(path) : entry.name.endsWith('.ts') ? [path] : [];
  });
}

t.test('plugins reach the core only through src/plugin-api.ts', async (t) => {
  const files = sources('plugins');
  t.ok(files.length > 40, 'every plugin file is read');
  for (const file of files) {
    const core = [...readFileSync(file, 'utf8').matchAll(/from '((?:\.\.\/)+src\/[^']*)'/g)].map((m) => m[1]);
    t.same(core.filter((path) => !path?.endsWith('src/plugin-api.js')), [], `${file} imports no other core module`);
  }
});

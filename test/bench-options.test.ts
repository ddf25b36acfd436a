import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { parseBenchOptions } from '../bench/lib/options.js';
import { baselineOf, gatewayVariants, targetsOf } from '../bench/lib/targets.js';

t.test('bench --against: a built checkout, not with --soak', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-against-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  t.throws(() => parseBenchOptions(['--against', dir]), /no built gateway there/, 'a checkout without dist/src/main.js is refused');
  mkdirSync(join(dir, 'dist/src'), { recursive: true });
  writeFileSync(join(dir, 'dist/src/main.js'), '');
  t.equal(parseBenchOptions(['--against', dir]).against, dir);
  t.equal(parseBenchOptions([]).against, null);
  t.throws(() => parseBenchOptions(['--soak', '--against', dir]), /--soak measures the one default gateway/);
});

t.test("bench --against: the other checkout's gateway is a target of its own, never the baseline", async (t) => {
  const variants = gatewayVariants('postgres', 1, { dir: '/old', name: '4edc547' });
  const targets = targetsOf(variants, true);
  t.same(targets.map((target) => target.id), ['direct', 'floor', 'gateway', 'gateway-postgres', 'gateway-against']);
  t.equal(targets.at(-1)?.label, 'gw 4edc547');
  t.equal(baselineOf(targets).id, 'gateway', "this tree's SQLite gateway stays the baseline");
  t.same(gatewayVariants('sqlite', 1), [{ store: 'sqlite', workers: 1 }], 'without --against, nothing is added');
});

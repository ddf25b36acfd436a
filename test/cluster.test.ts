import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t from 'tap';
import { brokenConfig, twoWorkers } from './helpers/cluster-scenario.js';

/** GATEWAY_WORKERS on SQLite (every worker on the one file); cluster-postgres.test.ts runs the same on PostgreSQL. */

// A primary and two workers compiled through the TypeScript loader, twice over: minutes on a busy 2-core machine.
t.setTimeout(240_000);

t.test('two workers on SQLite: both serve, metrics summed, a killed worker replaced, SIGTERM drains both', (t) => twoWorkers(t, {}));

t.test('a broken config with workers is one line and exit 1', async (t) => {
  await t.test('a bad port', (t) => brokenConfig(t, { PORT: 'eighty' }, /^gateway: .*gateway\.yaml: \/server\/port must be integer/));
  await t.test('a bad worker count', (t) => brokenConfig(t, { GATEWAY_WORKERS: 'many' }, /^gateway: .*gateway\.yaml: \/server\/workers must be integer/));
  await t.test('an instance id too long for the workers', (t) =>
    brokenConfig(t, { GATEWAY_INSTANCE_ID: 'x'.repeat(99) }, /^gateway: .*gateway\.yaml: \/server\/instance_id must be at most 97 characters with 2 workers/),
  );
  await t.test("a mistake only a plugin's setup finds is reported once, by the first worker", (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-cluster-config-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'gateway.yaml');
    const yaml = readFileSync('config/gateway.yaml', 'utf8')
      .replace('catalogue: models.yaml', `catalogue: ${resolve('config/models.yaml')}`)
      .replace('  - name: retry ', '  - name: retry\n    config: { fallback: { gamma: { gamma-5.4: gamma-9 } } }\n    #');
    writeFileSync(file, yaml);
    return brokenConfig(t, { GATEWAY_CONFIG: file }, /^gateway: .*gateway\.yaml: \/plugins\/\d+\/config\/fallback\/gamma\/gamma-5\.4: unknown sibling 'gamma-9'$/);
  });
});

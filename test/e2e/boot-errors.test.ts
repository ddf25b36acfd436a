import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t from 'tap';
import { loadCatalogue } from '../../src/catalogue/catalogue.js';
import { BootError } from '../../src/config/boot-error.js';
import { createGateway, type Gateway } from '../../src/gateway.js';
import { createLogger } from '../../src/log.js';
import { loadSetup, type GatewaySetup } from '../../src/setup.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { healthPolicy } from '../../src/upstreams/deployments.js';
import { LocalUpstreamHealth } from '../helpers/local-upstream-health.js';

/**
 * `npm start` prints a BootError as one line (`gateway: <message>`, test/process/start.test.ts) and
 * exits 1. Here: every configuration or plugin-order mistake is a BootError whose message is
 * one line naming the file and the path at fault — from the YAML, the plugin list, a plugin's
 * config schema, or a plugin's own setup.
 */

const dir = mkdtempSync(join(tmpdir(), 'gateway-boot-errors-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));
const shipped = readFileSync('config/gateway.yaml', 'utf8').replace('catalogue: models.yaml', `catalogue: ${resolve('config/models.yaml')}`);

/** The gateway of a loaded setup, as main.ts builds it. */
const gatewayOf = (setup: GatewaySetup, store: SqliteStore): Promise<Gateway> =>
  createGateway({
    config: setup.config,
    plugins: setup.plugins,
    catalogue: loadCatalogue(setup.cataloguePath),
    store,
    log: createLogger('silent'),
    health: new LocalUpstreamHealth(healthPolicy(setup.config.upstream_health)),
  });

/** Loads, sets up and closes a gateway from a config text, as main.ts does; resolves with what stopped it. */
async function boot(name: string, text: string): Promise<unknown> {
  const file = join(dir, name);
  writeFileSync(file, text);
  const store = SqliteStore.open(':memory:');
  try {
    const setup = await loadSetup(file, {});
    const gateway = await gatewayOf(setup, store);
    await gateway.close();
    return null;
  } catch (error) {
    await store.close();
    return error;
  }
}

t.test('each mistake is a one-line BootError naming the file and path', async (t) => {
  const gamma = (entries: string): string => `${shipped}\nupstreams:\n  gamma:\n${entries}`;
  const mistakes: Array<[string, string, RegExp]> = [
    [
      'deployment-url.yaml',
      gamma('    - { name: a, base_url: "http://127.0.0.1:1" }\n    - { name: b, base_url: "ftp://x" }\n'),
      /deployment-url\.yaml: \/upstreams\/gamma\/1\/base_url must match/,
    ],
    [
      'deployment-model.yaml',
      gamma('    - { name: a, base_url: "http://127.0.0.1:1", models: [alpha-sonnet-4.6] }\n'),
      /deployment-model\.yaml: \/upstreams\/gamma\/0\/models\/0 "alpha-sonnet-4\.6" is not a model of the gamma family/,
    ],
    [
      'deployment-twins.yaml',
      gamma('    - { name: a, base_url: "http://127.0.0.1:1" }\n    - { name: a, base_url: "http://127.0.0.1:2" }\n'),
      /deployment-twins\.yaml: \/upstreams\/gamma\/1\/name "a" is already the name of another gamma deployment/,
    ],
    [
      'deployment-key.yaml',
      gamma('    - { name: a, base_url: "http://127.0.0.1:1", api_key_env: GAMMA_KEY_NOWHERE }\n'),
      /deployment-key\.yaml: \/upstreams\/gamma\/0\/api_key_env names GAMMA_KEY_NOWHERE, which is not set/,
    ],
    [
      'deployment-field.yaml',
      gamma('    - { name: a, base_url: "http://127.0.0.1:1", api_key: "sk-in-the-file" }\n'),
      /deployment-field\.yaml: \/upstreams\/gamma\/0\/api_key is not a known setting/,
    ],
    ['before.yaml', shipped.replace('  - name: ledger\n', ''), /before\.yaml: \/plugins\/\d+: plugin "ceiling" needs "ledger" listed after it/],
    [
      'after.yaml',
      shipped.replace('  - name: auth\n', '').replace('  - name: dashboard', '  - name: dashboard\n  - name: auth'),
      /after\.yaml: \/plugins\/\d+: plugin "scope" needs the caller's key, which "auth" provides, but "auth" is listed after it \(.*after\.yaml: \/plugins\/\d+\); list "scope" below "auth"$/,
    ],
    [
      'setup.yaml',
      shipped.replace('  - name: retry ', '  - name: retry\n    config: { fallback: { gamma: { gamma-5.4: alpha-sonnet-4.6 } } }\n   '),
      /setup\.yaml: \/plugins\/\d+\/config\/fallback\/gamma\/gamma-5\.4: .*must both belong to the gamma family/,
    ],
    [
      'schema.yaml',
      shipped.replace('  - name: rate-limit ', '  - name: rate-limit\n    config: { default_rpm: -1 }\n   '),
      /schema\.yaml: \/plugins\/\d+\/config\/default_rpm/,
    ],
    [
      'noconfig.yaml',
      shipped.replace('  - name: scope', '  - name: scope\n    config: { surprise: true }'),
      /noconfig\.yaml: \/plugins\/\d+\/config: plugin "scope" takes no config/,
    ],
    [
      'family.yaml',
      `${shipped}\nupstreams: { delta: { base_url: "http://127.0.0.1:9" } }\n`,
      /family\.yaml: \/upstreams\/delta names a family that no enabled vendor plugin declares/,
    ],
    [
      'unknown.yaml',
      shipped.replace('  - name: dashboard', '  - name: dashboard\n  - name: no-such-plugin'),
      /unknown\.yaml: \/plugins\/\d+: no plugin named "no-such-plugin"/,
    ],
    [
      'twice.yaml',
      shipped.replace('  - name: dashboard', '  - name: dashboard\n  - name: scope'),
      /twice\.yaml: \/plugins\/\d+: plugin "scope" is listed twice/,
    ],
    [
      'headers.yaml',
      shipped.replace('  - name: dashboard', '  - name: dashboard\n  - name: upstream-headers\n    config: { headers: {}, families: [delta] }'),
      /headers\.yaml: \/plugins\/\d+\/config\/families names "delta"/,
    ],
  ];
  for (const [name, text, expected] of mistakes) {
    const error = await boot(name, text);
    t.type(error, BootError, `${name}: a BootError (printed as one line by npm start)`);
    t.match((error as Error).message, expected, name);
    t.notMatch((error as Error).message, /\n/, `${name}: one line`);
  }
  t.equal(await boot('fine.yaml', shipped), null, 'the shipped config itself boots');
});

t.test('a list of deployments beside GAMMA_BASE_URL or GAMMA_API_KEY is a one-line BootError', async (t) => {
  const file = join(dir, 'list-and-env.yaml');
  writeFileSync(file, `${shipped}\nupstreams:\n  gamma:\n    - { name: a, base_url: "http://127.0.0.1:1" }\n`);
  for (const name of ['GAMMA_BASE_URL', 'GAMMA_API_KEY']) {
    const error = await loadSetup(file, { [name]: name === 'GAMMA_BASE_URL' ? 'http://127.0.0.1:2' : 'sk-x' }).catch((e: unknown) => e);
    t.type(error, BootError);
    t.match((error as Error).message, new RegExp(`list-and-env\\.yaml: /upstreams/gamma is a list of deployments, so ${name} must not be set`), name);
  }
  const fine = await loadSetup(file, { GAMMA_API_KEY: '' });
  t.same(fine.config.upstreams['gamma'], [{ name: 'a', base_url: 'http://127.0.0.1:1', weight: 1 }], 'an empty variable is an unset one');
});

t.test('a port in use is one line too', async (t) => {
  const setup = await loadSetup('config/gateway.yaml', {});
  const open = (store: SqliteStore) => gatewayOf(setup, store);
  const first = await open(SqliteStore.open(':memory:'));
  t.teardown(() => first.close());
  const port = Number(new URL(await first.listen(0, '127.0.0.1')).port);
  const second = await open(SqliteStore.open(':memory:'));
  t.teardown(() => second.close());
  await t.rejects(second.listen(port, '127.0.0.1'), new BootError(`cannot listen on 127.0.0.1:${port} (EADDRINUSE); set HOST and PORT`));
});

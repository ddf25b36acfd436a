import { mkdtempSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import type { UpstreamConfig } from '../../src/config/schema.js';
import { loadCatalogue } from '../../src/catalogue/catalogue.js';
import { formatUsd, parseUsd, pricePerTokenNanos } from '../../src/catalogue/money.js';
import { loadConfig } from '../../src/config/load.js';
import { loadSetup } from '../../src/setup.js';
import { workerCount } from '../../src/cluster/protocol.js';

const dir = mkdtempSync(join(tmpdir(), 'gateway-config-'));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const upstreams = 'upstreams: {alpha: {base_url: "http://a"}, beta: {base_url: "http://b"}, gamma: {base_url: "http://c"}}\nplugins: []\n';

t.test('the shipped config loads with its defaults, and env overrides win', async (t) => {
  const plain = loadConfig('config/gateway.yaml', {});
  t.equal(plain.config.server.port, 8080);
  t.equal(plain.config.server.host, '127.0.0.1');
  t.equal(plain.config.server.max_body_bytes, 20 * 1024 * 1024);
  t.equal(plain.config.database.path, 'data/gateway.db');
  t.equal(plain.config.retry.max, 2);
  t.equal(plain.config.timeouts.upstream_ms, 60_000);
  t.equal(plain.config.timeouts.stream_idle_ms, 120_000);
  t.equal(plain.config.server.instance_id, 'default');
  t.same(
    plain.config.plugins.map((p) => p.name),
    [
      'telemetry',
      'metrics',
      'status',
      'health',
      'ingress-chat',
      'ingress-messages',
      'ingress-gemini',
      'auth',
      'model-normalise',
      'capabilities',
      'scope',
      'ingress-responses',
      'rate-limit',
      'response-cache',
      'ceiling',
      'retry',
      'vendor-alpha',
      'vendor-beta',
      'vendor-gamma',
      'request-log',
      'ledger',
      'dashboard',
    ],
  );

  const env = {
    HOST: '0.0.0.0',
    PORT: '9090',
    GATEWAY_DB: '/tmp/x.db',
    GATEWAY_RETRY_MAX: '4',
    GATEWAY_UPSTREAM_TIMEOUT_MS: '1500',
    GATEWAY_STREAM_IDLE_TIMEOUT_MS: '2500',
    GATEWAY_MAX_BODY_BYTES: '1024',
    LOG_LEVEL: 'debug',
    GAMMA_BASE_URL: 'http://127.0.0.1:9000',
    GAMMA_API_KEY: 'k-gamma',
    ALPHA_API_KEY: 'k-alpha',
    GATEWAY_ADMIN_TOKEN: 'admin-token-0123456789',
    GATEWAY_INSTANCE_ID: 'gw-2',
  };
  const { config, overrides } = await loadSetup('config/gateway.yaml', env);
  t.equal(config.server.host, '0.0.0.0');
  t.equal(config.server.port, 9090);
  t.equal(config.database.path, '/tmp/x.db');
  t.equal(config.retry.max, 4);
  t.equal(config.timeouts.upstream_ms, 1500);
  t.equal(config.timeouts.stream_idle_ms, 2500);
  t.equal(config.server.max_body_bytes, 1024);
  t.equal(config.log.level, 'debug');
  t.equal((config.upstreams['gamma'] as UpstreamConfig | undefined)?.base_url, 'http://127.0.0.1:9000');
  t.equal((config.upstreams['gamma'] as UpstreamConfig | undefined)?.api_key, 'k-gamma');
  t.equal((config.upstreams['alpha'] as UpstreamConfig | undefined)?.api_key, 'k-alpha');
  t.equal((config.upstreams['beta'] as UpstreamConfig | undefined)?.base_url, 'https://generativelanguage.googleapis.com', 'from the file');
  t.equal(config.admin.token, 'admin-token-0123456789');
  t.equal(config.server.instance_id, 'gw-2');
  t.same(overrides.sort(), Object.keys(env).sort());
});

t.test('config errors name the file and the path at fault', async (t) => {
  t.throws(() => loadConfig(join(dir, 'missing.yaml'), {}), { message: /missing\.yaml.*cannot be read/ });
  t.throws(() => loadConfig('config/gateway.yaml', { PORT: 'eighty' }), { message: /\/server\/port must be an integer.*PORT/ });
  t.throws(() => loadConfig('config/gateway.yaml', { GATEWAY_RETRY_MAX: '9' }), { message: /\/retry\/max must be <= 4/ });
  await t.rejects(loadSetup('config/gateway.yaml', { GAMMA_BASE_URL: 'http://x/v1' }), {
    message: /gateway\.yaml: \/upstreams\/gamma\/base_url .*GAMMA_BASE_URL/,
  });
  t.throws(() => loadConfig('config/gateway.yaml', { LOG_LEVEL: 'loud' }), { message: /\/log\/level must be one of/ });
  t.throws(() => loadConfig(file('typo.yaml', `${upstreams}server: {prot: 1}\n`), {}), { message: /typo\.yaml: \/server\/prot is not a known setting/ });
  await t.rejects(loadSetup(file('stray.yaml', upstreams), {}), {
    message: /stray\.yaml: \/upstreams\/alpha names a family that no enabled vendor plugin declares/,
  });
  const vendorsOnly = 'plugins: [{name: model-normalise}, {name: vendor-gamma}]\n';
  const defaults = await loadSetup(file('defaults.yaml', vendorsOnly), {});
  t.same(defaults.config.upstreams, { gamma: { base_url: 'https://api.openai.com' } }, 'a vendor with no upstream entry gets its default origin');
  t.same(
    defaults.vendors.map((v) => v.family),
    ['gamma'],
  );
  t.throws(() => loadConfig(file('list.yaml', '- 1\n'), {}), { message: /must be a mapping/ });
});

t.test('the catalogue: the 11 models, aliases, prices, and its errors', async (t) => {
  const catalogue = loadCatalogue('config/models.yaml');
  t.same(
    catalogue.models.map((m) => m.id),
    [
      'alpha-opus-4.6',
      'alpha-sonnet-4.6',
      'alpha-haiku-4.5',
      'beta-3.1-pro',
      'beta-3-flash',
      'gamma-5.4',
      'gamma-5.3-code',
      'gamma-5.2',
      'gamma-5.2-code',
      'gamma-5.1-code',
      'gamma-5.1-code-max',
    ],
  );
  const table: Record<string, [string, string]> = {
    'alpha-opus-4.6': ['15.00', '7.50'],
    'alpha-sonnet-4.6': ['3.00', '1.50'],
    'alpha-haiku-4.5': ['0.25', '0.13'],
    'beta-3.1-pro': ['3.50', '1.75'],
    'beta-3-flash': ['0.075', '0.038'],
    'gamma-5.4': ['5.00', '2.50'],
    'gamma-5.3-code': ['5.00', '2.50'],
    'gamma-5.2': ['4.00', '2.00'],
    'gamma-5.2-code': ['4.00', '2.00'],
    'gamma-5.1-code': ['3.00', '1.50'],
    'gamma-5.1-code-max': ['8.00', '4.00'],
  };
  for (const model of catalogue.models) {
    t.same([model.output.list, model.output.charged], table[model.id], `${model.id} prices as in the spec`);
    t.ok(model.maxOutputTokens > 0);
  }
  t.equal(catalogue.resolve('alpha-sonnet-4-6')?.id, 'alpha-sonnet-4.6');
  t.equal(catalogue.resolve('alpha-opus-4-6')?.id, 'alpha-opus-4.6');
  t.equal(catalogue.resolve('beta-3.1-pro-preview')?.id, 'beta-3.1-pro');
  t.equal(catalogue.resolve('  ALPHA-Sonnet-4.6 ')?.id, 'alpha-sonnet-4.6');
  for (const unknown of ['gamma-5.4-mini', 'gamma-5.5', 'alpha-opus-4.7', 'alpha-opus-4-7', 'beta-3.5-flash', 'beta-2.5-pro']) {
    t.equal(catalogue.resolve(unknown), undefined, `${unknown} is not in the catalogue`);
  }
  t.equal(catalogue.resolve('beta-3-flash')?.output.chargedNanosPerToken, 38);
  t.equal(catalogue.resolve('alpha-opus-4.6')?.output.chargedNanosPerToken, 7500);

  const families = 'families: {alpha: {owned_by: a}, beta: {owned_by: b}, gamma: {owned_by: c}}\n';
  const model = (extra: string) =>
    `{id: m-1, family: gamma, created: 1, price: {output: {list: "1.00", charged: "0.50"}, input: {list: "0.125", charged: "0"}}, capabilities: [], max_output_tokens: 10${extra}}`;
  t.throws(() => loadCatalogue(file('dup.yaml', `${families}models: [${model(', aliases: [x]')}, ${model(', aliases: [X]').replace('m-1', 'm-2')}]\n`)), {
    message: /dup\.yaml: \/models\/1 name "X" is already used by m-1/,
  });
  t.throws(() => loadCatalogue(file('price.yaml', `${families}models: [${model('').replace('"0.50"', '"0.5001"')}]\n`)), {
    message: /\/models\/0\/price\/output\/charged must match pattern/,
  });
  t.throws(
    () => loadCatalogue(file('input.yaml', `${families}models: [${model('').replace(', input: {list: "0.125", charged: "0"}', '')}]\n`)),
    {
      message: /input\.yaml: \/models\/0\/price\/input is required/,
    },
    'a model without an input price: its prompt tokens would cost nothing upstream',
  );
  t.throws(() => loadCatalogue(file('fam.yaml', `${families}models: [${model('').replace('gamma', 'delta')}]\n`)), {
    message: /fam\.yaml: \/models\/0\/family "delta" is not listed under families/,
  });
  const extra = loadCatalogue(file('extra.yaml', `families: {alpha: {owned_by: a}, delta: {owned_by: d}}\nmodels: [${model('').replace('gamma', 'delta')}]\n`));
  t.same(extra.unservedFamilies(['alpha', 'beta', 'gamma']), ['delta'], 'a family no vendor plugin serves is named');
  t.same(extra.unservedFamilies(['alpha', 'delta']), []);
});

/** The vendors' published input:output list-price ratios, per family (config/models.yaml, docs/money.md). */
const INPUT_TO_OUTPUT = { alpha: 5, beta: 6, gamma: 8 } as const;

t.test("input prices: every model lists one, its family's ratio to the output list price rounded up; input is charged nothing", async (t) => {
  const catalogue = loadCatalogue('config/models.yaml');
  for (const model of catalogue.models) {
    const ratio = INPUT_TO_OUTPUT[model.family as keyof typeof INPUT_TO_OUTPUT];
    t.ok(ratio, `${model.id}: a family with a documented ratio`);
    // Per-token nano-dollars are the per-1M price's three decimals: rounding up there never undercuts the vendor.
    t.equal(
      model.input.listNanosPerToken,
      Math.ceil(model.output.listNanosPerToken / ratio),
      `${model.id}: input list = output list ${model.output.list} / ${ratio}, rounded up`,
    );
    t.ok(model.input.listNanosPerToken > 0, `${model.id}: prompt tokens cost the operator something`);
    t.equal(model.input.chargedNanosPerToken, 0, `${model.id}: callers are not charged for input`);
  }
  t.same(
    ['alpha-opus-4.6', 'beta-3.1-pro', 'beta-3-flash', 'gamma-5.1-code'].map((id) => catalogue.resolve(id)?.input.list),
    ['3.00', '0.584', '0.013', '0.375'],
    'by hand: 15.00 / 5, 3.50 / 6 = 0.5833… → 0.584, 0.075 / 6 = 0.0125 → 0.013, 3.00 / 8',
  );
});

t.test('money is exact integer nano-dollars', async (t) => {
  t.equal(parseUsd('7.50'), 7_500_000_000);
  t.equal(parseUsd('0.000000001'), 1);
  t.equal(formatUsd(1520), '0.00000152');
  t.equal(formatUsd(50_000_000_000), '50.00');
  t.equal(formatUsd(300_000), '0.0003');
  t.equal(formatUsd(-1_500_000_000), '-1.50');
  t.equal(pricePerTokenNanos('0.038'), 38);
  t.equal(40 * pricePerTokenNanos('7.50'), 300_000, '40 tokens of alpha-opus-4.6 cost exactly $0.0003');
  t.throws(() => parseUsd('1e3'));
  t.throws(() => parseUsd('-1'));
  t.throws(() => pricePerTokenNanos('0.0001'), /more than 3 decimals/);
  t.throws(() => formatUsd(0.5), /not an exact amount/);
});

t.test('upstream_health: its defaults, and the env overrides', async (t) => {
  t.same(loadConfig('config/gateway.yaml', {}).config.upstream_health, { fails: 3, window_s: 30, cooldown_s: 30 });
  const env = { GATEWAY_UPSTREAM_FAILS: '5', GATEWAY_UPSTREAM_WINDOW_S: '60', GATEWAY_UPSTREAM_COOLDOWN_S: '90' };
  t.same(loadConfig('config/gateway.yaml', env).config.upstream_health, { fails: 5, window_s: 60, cooldown_s: 90 });
  t.throws(() => loadConfig('config/gateway.yaml', { GATEWAY_UPSTREAM_FAILS: '0' }), { message: /\/upstream_health\/fails must be >= 1/ });
});

t.test('a list of deployments settles with its defaults and each credential from the variable it names', async (t) => {
  const path = file(
    'list.yaml',
    'upstreams:\n  gamma:\n    - { name: east, base_url: "http://e", api_key_env: EAST_KEY, rpm: 60, models: [GAMMA-5.4] }\n    - { name: west, base_url: "http://w", weight: 3 }\nplugins: [{ name: model-normalise }, { name: vendor-gamma }]\ncatalogue: ' +
      join(process.cwd(), 'config/models.yaml') +
      '\n',
  );
  const { config } = await loadSetup(path, { EAST_KEY: 'sk-east' });
  t.same(
    config.upstreams['gamma'],
    [
      { name: 'east', base_url: 'http://e', api_key_env: 'EAST_KEY', api_key: 'sk-east', rpm: 60, models: ['gamma-5.4'], weight: 1 },
      { name: 'west', base_url: 'http://w', weight: 3 },
    ],
    'the model id canonical, the weight 1 unless given',
  );
});

t.test("prompt-cache rates: reads at 0.1 × input in every family, alpha's writes at 1.25 × (2 × for an hour), rounded up; absent: a fallback", async (t) => {
  const catalogue = loadCatalogue('config/models.yaml');
  for (const model of catalogue.models) {
    const input = model.input.listNanosPerToken;
    t.equal(model.input.cacheReadNanosPerToken, Math.ceil(input / 10), `${model.id}: cache_read = input ${model.input.list} / 10, rounded up`);
    const write = model.family === 'alpha' ? Math.ceil((input * 5) / 4) : input;
    t.equal(model.input.cacheWriteNanosPerToken, write, `${model.id}: cache_write ${model.family === 'alpha' ? '= 1.25 × input' : 'absent: the input rate'}`);
    const hour = model.family === 'alpha' ? input * 2 : write;
    t.equal(
      model.input.cacheWrite1hNanosPerToken,
      hour,
      `${model.id}: cache_write_1h ${model.family === 'alpha' ? '= 2 × input' : 'absent: the cache_write rate'}`,
    );
  }
  t.same(
    ['alpha-opus-4.6', 'alpha-haiku-4.5'].map((id) => [catalogue.resolve(id)?.input.cacheRead, catalogue.resolve(id)?.input.cacheWrite]),
    [
      ['0.30', '3.75'],
      ['0.005', '0.063'],
    ],
    'by hand: 3.00 × 0.1 and × 1.25; 0.05 × 1.25 = 0.0625 → 0.063',
  );

  const families = 'families: {alpha: {owned_by: a}}\n';
  const model = (input: string) =>
    `{id: m-1, family: alpha, created: 1, price: {output: {list: "1.00", charged: "0.50"}, input: {list: "0.20", charged: "0"${input}}}, capabilities: [], max_output_tokens: 10}`;
  t.throws(() => loadCatalogue(file('read.yaml', `${families}models: [${model(', cache_read: "0.0201"')}]\n`)), {
    message: /read\.yaml: \/models\/0\/price\/input\/cache_read must match pattern/,
  });
  t.throws(() => loadCatalogue(file('write.yaml', `${families}models: [${model(', cache_write: 0.25')}]\n`)), {
    message: /write\.yaml: \/models\/0\/price\/input\/cache_write must be a string/,
  });
  t.throws(() => loadCatalogue(file('other.yaml', `${families}models: [${model(', cache_hit: "0.02"')}]\n`)), {
    message: /other\.yaml: \/models\/0\/price\/input/,
  });
  const plain = loadCatalogue(file('plain.yaml', `${families}models: [${model('')}]\n`)).resolve('m-1');
  t.same([plain?.input.cacheRead, plain?.input.cacheReadNanosPerToken, plain?.input.cacheWriteNanosPerToken], [null, 200, 200], 'absent: the input list rate');
  t.same(plain?.input.cacheWrite1hNanosPerToken, 200, 'a one-hour write without any write rate: the input list rate');
  const written = loadCatalogue(file('write5m.yaml', `${families}models: [${model(', cache_write: "0.25"')}]\n`)).resolve('m-1');
  t.same([written?.input.cacheWrite1h, written?.input.cacheWrite1hNanosPerToken], [null, 250], 'cache_write_1h absent: the cache_write rate');
  const hour = loadCatalogue(file('write1h.yaml', `${families}models: [${model(', cache_write: "0.25", cache_write_1h: "0.40"')}]\n`)).resolve('m-1');
  t.same([hour?.input.cacheWrite1h, hour?.input.cacheWrite1hNanosPerToken, hour?.input.cacheWriteNanosPerToken], ['0.40', 400, 250], 'its own rate');
});

t.test('one worker unless asked: GATEWAY_WORKERS=auto is the cores this process may use (docs/performance.md#workers)', async (t) => {
  t.equal(workerCount(loadConfig('config/gateway.yaml', {}).config), 1, 'the default');
  t.equal(workerCount(loadConfig('config/gateway.yaml', { GATEWAY_WORKERS: 'auto' }).config), availableParallelism());
  t.equal(workerCount(loadConfig('config/gateway.yaml', { GATEWAY_WORKERS: '3' }).config), 3);
});

import type { ModelEntry } from '../../src/catalogue/catalogue.js';
import { mkdtempSync, rmSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import t from 'tap';
import { settled, withFacts } from '../helpers/pipeline-parts.js';
import ceilingPlugin from '../../plugins/ceiling/index.js';
import ledgerPlugin from '../../plugins/ledger/index.js';
import { loadCatalogue } from '../../src/catalogue/catalogue.js';
import { costOf } from '../../src/catalogue/cost.js';
import { formatUsd, parseUsd } from '../../src/catalogue/money.js';
import { Call, type JsonObject } from '../../src/chain/call.js';
import { ENDPOINTS } from '../helpers/endpoints.js';
import type { PluginContext, PluginHooks } from '../../src/chain/plugin.js';
import { loadConfig } from '../../src/config/load.js';
import { hashSecret } from '../../src/keys/key-material.js';
import { createLogger } from '../../src/log.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { KeyRecord } from '../../src/store/store.js';
import { FakeClock } from '../helpers/harness.js';

/**
 * Every catalogue model, computed by hand from config/models.yaml's prices (dollars per 1M
 * tokens: output list, output charged, input list; input is charged 0). `cost40` is 40 output
 * tokens at the charged price; `list40` is the upstream (list) cost of 40 output and 3 prompt
 * tokens, `savings40` the difference; `max` is the charged reservation of a request without
 * max_tokens (the catalogue's max_output_tokens × the charged price) and `listMax` the same at
 * the output list price; `inNanos` is the input list price per token in nano-dollars.
 * gamma-5.4 e.g.: 40 × 5000 + 3 × 625 = 201 875 nano-dollars upstream, 40 × 2500 = 100 000 charged.
 * Checked here on the ledger and ceiling level; every model also end to end, streamed and
 * not, in ledger.test.ts.
 */
interface Expected {
  perMillion: [string, string, string];
  inNanos: number;
  cost40: string;
  list40: string;
  savings40: string;
  nanos40: number;
  max: string;
  listMax: string;
}
const HAND_COMPUTED: Record<string, Expected> = {
  'alpha-opus-4.6': {
    perMillion: ['15.00', '7.50', '3.00'],
    inNanos: 3000,
    cost40: '0.0003',
    list40: '0.000609',
    savings40: '0.000309',
    nanos40: 300_000,
    max: '0.96',
    listMax: '1.92',
  },
  'alpha-sonnet-4.6': {
    perMillion: ['3.00', '1.50', '0.60'],
    inNanos: 600,
    cost40: '0.00006',
    list40: '0.0001218',
    savings40: '0.0000618',
    nanos40: 60_000,
    max: '0.192',
    listMax: '0.384',
  },
  'alpha-haiku-4.5': {
    perMillion: ['0.25', '0.13', '0.05'],
    inNanos: 50,
    cost40: '0.0000052',
    list40: '0.00001015',
    savings40: '0.00000495',
    nanos40: 5_200,
    max: '0.00832',
    listMax: '0.016',
  },
  'beta-3.1-pro': {
    perMillion: ['3.50', '1.75', '0.584'],
    inNanos: 584,
    cost40: '0.00007',
    list40: '0.000141752',
    savings40: '0.000071752',
    nanos40: 70_000,
    max: '0.114688',
    listMax: '0.229376',
  },
  'beta-3-flash': {
    perMillion: ['0.075', '0.038', '0.013'],
    inNanos: 13,
    cost40: '0.00000152',
    list40: '0.000003039',
    savings40: '0.000001519',
    nanos40: 1_520,
    max: '0.002490368',
    listMax: '0.0049152',
  },
  'gamma-5.4': {
    perMillion: ['5.00', '2.50', '0.625'],
    inNanos: 625,
    cost40: '0.0001',
    list40: '0.000201875',
    savings40: '0.000101875',
    nanos40: 100_000,
    max: '0.32',
    listMax: '0.64',
  },
  'gamma-5.3-code': {
    perMillion: ['5.00', '2.50', '0.625'],
    inNanos: 625,
    cost40: '0.0001',
    list40: '0.000201875',
    savings40: '0.000101875',
    nanos40: 100_000,
    max: '0.32',
    listMax: '0.64',
  },
  'gamma-5.2': {
    perMillion: ['4.00', '2.00', '0.50'],
    inNanos: 500,
    cost40: '0.00008',
    list40: '0.0001615',
    savings40: '0.0000815',
    nanos40: 80_000,
    max: '0.256',
    listMax: '0.512',
  },
  'gamma-5.2-code': {
    perMillion: ['4.00', '2.00', '0.50'],
    inNanos: 500,
    cost40: '0.00008',
    list40: '0.0001615',
    savings40: '0.0000815',
    nanos40: 80_000,
    max: '0.256',
    listMax: '0.512',
  },
  'gamma-5.1-code': {
    perMillion: ['3.00', '1.50', '0.375'],
    inNanos: 375,
    cost40: '0.00006',
    list40: '0.000121125',
    savings40: '0.000061125',
    nanos40: 60_000,
    max: '0.192',
    listMax: '0.384',
  },
  'gamma-5.1-code-max': {
    perMillion: ['8.00', '4.00', '1.00'],
    inNanos: 1000,
    cost40: '0.00016',
    list40: '0.000323',
    savings40: '0.000163',
    nanos40: 160_000,
    max: '0.512',
    listMax: '1.024',
  },
};

const catalogue = loadCatalogue('config/models.yaml');

t.test('the hand-computed table covers the whole catalogue', async (t) => {
  t.same(Object.keys(HAND_COMPUTED).sort(), catalogue.models.map((m) => m.id).sort());
});

t.test('costOf: 40 tokens and 1M tokens of every model, prompt tokens at the input list price and charged nothing, exactly', async (t) => {
  for (const [id, want] of Object.entries(HAND_COMPUTED)) {
    const model = catalogue.resolve(id);
    if (!model) throw new Error(`${id} missing`);
    const forty = costOf(model, { promptTokens: 3, completionTokens: 40 });
    t.same([formatUsd(forty.charged), formatUsd(forty.list), formatUsd(forty.list - forty.charged)], [want.cost40, want.list40, want.savings40], id);
    const million = costOf(model, { promptTokens: 0, completionTokens: 1_000_000 });
    const millionIn = costOf(model, { promptTokens: 1_000_000, completionTokens: 0 });
    t.same([formatUsd(million.list), formatUsd(million.charged), formatUsd(millionIn.list)], want.perMillion, `${id}: 1M tokens cost the catalogue's prices`);
    t.equal(millionIn.charged, 0, `${id}: input is charged nothing`);
  }
});

/** The real ledger and ceiling plugins on a real SQLite store, driven call by call without HTTP. */
async function plugins(t: { teardown(fn: () => unknown): void }) {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-cost-'));
  const store = SqliteStore.open(join(dir, 'gateway.db'));
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const { config } = loadConfig('config/gateway.yaml', {});
  const clock = new FakeClock(Date.parse('2026-11-15T12:00:00Z'));
  const context: PluginContext = {
    config,
    catalogue,
    store,
    clock,
    log: createLogger('silent'),
    metrics: new Registry(),
    scrapeMetrics: () => Promise.reject(new Error('not used by the ledger and ceiling plugins')),
    families: ['alpha', 'beta', 'gamma'],
    upstreamCredential: () => undefined,
    upstreamCredentials: () => [],
    upstreamBaseUrl: () => undefined,
    env: {},
    simulatedFamilies: [],
    dispatch: () => {
      throw new Error('not used by the ledger and ceiling plugins');
    },
  };
  const ceiling = await ceilingPlugin.setup(context, {});
  const ledger = await ledgerPlugin.setup(context, {});
  let keys = 0;
  const newKey = (ceilingNanos: number | null): Promise<KeyRecord> =>
    store.keys.create({
      name: `k${++keys}`,
      models: null,
      monthlyCeilingNanos: ceilingNanos,
      expiresAt: null,
      valueHash: hashSecret(`value-${keys}`),
      display: 'sl-test…test',
      now: clock.now(),
    });
  const newCall = (key: KeyRecord, body: JsonObject, endpoint = ENDPOINTS['chat.completions']): Call => {
    const call = new Call(endpoint, { headers: {} } as IncomingMessage, {} as ServerResponse, clock.now(), Buffer.from(JSON.stringify(body)));
    call.authenticate(key);
    call.resolveModel(catalogue.resolve(String(body['model'])) as ModelEntry);
    call.stream = body['stream'] === true;
    return call;
  };
  /** What the pipeline does after gatekeeping: an answer of `tokens` output tokens, then completion hooks in reverse order. */
  const finish = async (call: Call, tokens: number): Promise<void> => {
    call.attempts = 1;
    call.usage = { promptTokens: 3, completionTokens: tokens };
    call.outcome = 'ok';
    call.status = 200;
    for (const hooks of [ledger, ceiling] as PluginHooks[]) await hooks.onComplete?.(settled(call));
  };
  const usage = async (key: KeyRecord): Promise<JsonObject> => {
    const call = newCall(key, {}, ENDPOINTS.usage);
    return (await ledger.responders?.usage?.(withFacts(call, 'key'))) as JsonObject;
  };
  /** The ceiling's request hook, then the admission step it queued, as the pipeline runs them. */
  const admit = async (call: Call): Promise<void> => {
    await ceiling.onRequest?.(withFacts(call, 'key', 'model'));
    await call.admission.run(store);
  };
  return { store, admit, newKey, newCall, finish, usage };
}

t.test('every model on the ledger and ceiling level, streamed and not: reservation, settlement, usage', async (t) => {
  const { admit, newKey, newCall, finish, usage } = await plugins(t);
  for (const [id, want] of Object.entries(HAND_COMPUTED)) {
    for (const stream of [false, true]) {
      const name = `${id}${stream ? ' streamed' : ''}`;
      const key = await newKey(want.nanos40); // a ceiling of exactly one call of 40 tokens
      const body = { model: id, stream, max_tokens: 40, messages: [{ role: 'user', content: 'x' }] };
      const call = newCall(key, body);
      await admit(call);
      t.equal(call.reservation?.nanos, want.nanos40, `${name}: 40 tokens × the charged price reserved`);
      t.match((await usage(key))['cycle'], { spent_usd: '0.00', reserved_usd: want.cost40 }, `${name}: held while in flight`);
      await finish(call, 40);
      const report = await usage(key);
      t.same(
        report['totals'],
        {
          requests: 1,
          cached_requests: 0,
          prompt_tokens: 3,
          completion_tokens: 40,
          total_tokens: 43,
          cached_tokens: 0,
          cache_write_tokens: 0,
          cache_write_1h_tokens: 0,
          reasoning_tokens: 0,
          cost_usd: want.cost40,
          upstream_cost_usd: want.list40,
          list_cost_usd: want.list40,
          savings_usd: want.savings40,
        },
        `${name}: totals at the hand-computed figures`,
      );
      t.match(
        report['cycle'],
        { spent_usd: want.cost40, reserved_usd: '0.00', remaining_usd: '0.00', upstream_spent_usd: want.list40, upstream_reserved_usd: '0.00' },
        `${name}: settled to the real costs`,
      );
      t.match(report['data'], [{ model: id, cost_usd: want.cost40, upstream_cost_usd: want.list40, list_cost_usd: want.list40, savings_usd: want.savings40 }]);
      await t.rejects(admit(newCall(key, { ...body, max_tokens: 1 })), { status: 402, code: 'monthly_cap_exceeded' }, `${name}: the ceiling is reached`);
    }
  }
});

t.test('every model: without max_tokens the catalogue maximum is reserved; n multiplies; the upstream bound adds the request bytes', async (t) => {
  const { admit, newKey, newCall } = await plugins(t);
  const key = await newKey(10 ** 12);
  for (const [id, want] of Object.entries(HAND_COMPUTED)) {
    const body = { model: id, messages: [] };
    const call = newCall(key, body);
    await admit(call);
    t.equal(formatUsd(call.reservation?.nanos ?? -1), want.max, `${id}: max_output_tokens × charged price`);
    const bytes = Buffer.byteLength(JSON.stringify(body));
    t.equal(
      call.reservation?.upstreamNanos,
      parseUsd(want.listMax) + bytes * want.inNanos,
      `${id}: upstream: max_output_tokens × output list price + ${bytes} bytes × input list price`,
    );
    const many = newCall(key, { model: id, max_tokens: 40, n: 3, messages: [] });
    await admit(many);
    t.equal(many.reservation?.nanos, 3 * want.nanos40, `${id}: three choices of 40`);
    const huge = newCall(key, { model: id, max_completion_tokens: 10_000_000, max_tokens: 5, messages: [] });
    await admit(huge);
    t.equal(formatUsd(huge.reservation?.nanos ?? -1), want.max, `${id}: a limit above the model's is capped at the model's`);
  }
  const embedding = { model: 'gamma-5.4', input: 'x' };
  const embed = newCall(key, embedding, ENDPOINTS.embeddings);
  await admit(embed);
  t.equal(embed.reservation?.nanos, 0, 'embeddings produce no output tokens, and input is charged nothing');
  t.equal(
    embed.reservation?.upstreamNanos,
    Buffer.byteLength(JSON.stringify(embedding)) * 625,
    "upstream: only the input bound, at gamma-5.4's 625 nano-dollars a token",
  );
});

t.test('the store: exact fit admitted, one nano-dollar over refused, reached refuses even a free call', async (t) => {
  const { store, newKey } = await plugins(t);
  const key = await newKey(1000);
  const reserve = (nanos: number, instance = 'default') =>
    store.ledger.reserve({
      keyId: key.id,
      cycle: '2026-11',
      nanos,
      upstreamNanos: 0,
      ceilingNanos: 1000,
      upstreamLimitNanos: null,
      instance,
      now: 0,
      expiresAt: 120_000,
    });
  const a = await reserve(600);
  t.ok(a.admitted);
  t.match(await reserve(401), { admitted: false, refusedBy: ['ceiling'], spent: 0, reserved: 600 }, 'one nano-dollar too many');
  const b = await reserve(400, 'other');
  t.ok(b.admitted, 'exactly the rest fits');
  t.match(await store.ledger.cycleSpend(key.id, '2026-11', 0), { spent: 0, reserved: 1000 });
  t.match(await store.ledger.cycleSpend(key.id, '2026-12', 0), { spent: 0, reserved: 0 }, 'cycles are apart');
  t.equal(await store.ledger.releaseInstance('default'), 1, 'a restart releases its own instance only');
  t.match(await store.ledger.cycleSpend(key.id, '2026-11', 0), { spent: 0, reserved: 400 });
  if (!b.admitted) throw new Error('b');
  const row = {
    admittedAt: 0,
    cycle: '2026-11',
    keyId: key.id,
    model: 'gamma-5.4',
    family: 'gamma',
    endpoint: 'chat.completions',
    stream: false,
    status: 200,
    outcome: 'ok',
    attempts: 1,
    promptTokens: 0,
    completionTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    reasoningTokens: 0,
    usageEstimated: false,
    chargedNanos: 1000,
    listNanos: 2000,
    upstreamMs: 1,
    ttftMs: null,
    cached: false,
    deployment: null,
  };
  await store.ledger.record(row, b.reservation.id);
  t.same(
    await store.ledger.cycleSpend(key.id, '2026-11', 0),
    { spent: 1000, reserved: 0, upstreamSpent: 2000, upstreamReserved: 0 },
    'row, spends and release in one go',
  );
  t.match(await reserve(0), { admitted: false, spent: 1000 }, 'a reached ceiling refuses even a call that costs nothing');
});

import OpenAI from 'openai';
import t from 'tap';
import { FakeClock, startHarness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';
import { ask, usage } from '../helpers/usage.js';

/**
 * Hand-computed (docs/money.md): 40 output tokens × the charged price per 1M tokens, and for
 * the upstream (list) cost 40 output tokens × the output list price + the 2 prompt tokens the
 * simulators count for "Count [[sim:tokens=40]]" × the input list price.
 * gamma-5.4: 40 × $2.50/1M = $0.0001 charged, 40 × $5.00/1M + 2 × $0.625/1M = $0.00020125 upstream;
 * beta-3-flash: 40 × $0.038/1M = $0.00000152 charged, 40 × $0.075/1M + 2 × $0.013/1M = $0.000003026 upstream.
 */
const FORTY_TOKENS: Record<string, { cost: string; list: string; savings: string; nanos: [number, number] }> = {
  'alpha-opus-4.6': { cost: '0.0003', list: '0.000606', savings: '0.000306', nanos: [300_000, 606_000] },
  'alpha-sonnet-4.6': { cost: '0.00006', list: '0.0001212', savings: '0.0000612', nanos: [60_000, 121_200] },
  'alpha-haiku-4.5': { cost: '0.0000052', list: '0.0000101', savings: '0.0000049', nanos: [5_200, 10_100] },
  'beta-3.1-pro': { cost: '0.00007', list: '0.000141168', savings: '0.000071168', nanos: [70_000, 141_168] },
  'beta-3-flash': { cost: '0.00000152', list: '0.000003026', savings: '0.000001506', nanos: [1_520, 3_026] },
  'gamma-5.4': { cost: '0.0001', list: '0.00020125', savings: '0.00010125', nanos: [100_000, 201_250] },
  'gamma-5.3-code': { cost: '0.0001', list: '0.00020125', savings: '0.00010125', nanos: [100_000, 201_250] },
  'gamma-5.2': { cost: '0.00008', list: '0.000161', savings: '0.000081', nanos: [80_000, 161_000] },
  'gamma-5.2-code': { cost: '0.00008', list: '0.000161', savings: '0.000081', nanos: [80_000, 161_000] },
  'gamma-5.1-code': { cost: '0.00006', list: '0.00012075', savings: '0.00006075', nanos: [60_000, 120_750] },
  'gamma-5.1-code-max': { cost: '0.00016', list: '0.000322', savings: '0.000162', nanos: [160_000, 322_000] },
};

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _chunk of stream) {
    // read to the end
  }
}

t.test('every catalogue model of all three families, streamed and not: the ledger at hand-computed cost, list cost and savings', async (t) => {
  const h = await startHarness(t, { clock: new FakeClock() });
  const plain = await h.createKey({ name: 'plain' });
  const streamed = await h.createKey({ name: 'streamed' });
  const db = openLedgerDb(h.dbPath);
  t.teardown(() => db.close());

  for (const model of Object.keys(FORTY_TOKENS)) {
    const reply = await h.client(plain.key).chat.completions.create({ model, messages: ask('Count [[sim:tokens=40]]') });
    t.equal(reply.usage?.completion_tokens, 40);
    // No include_usage: the gateway still learns the stream's usage for the ledger.
    await drain(await h.client(streamed.key).chat.completions.create({ model, stream: true, messages: ask('Count [[sim:tokens=40]]') }));
  }

  for (const [who, key, stream] of [
    ['plain', plain, 0],
    ['streamed', streamed, 1],
  ] as const) {
    const body = await usage(h, key.key);
    t.same(
      body.data,
      Object.entries(FORTY_TOKENS)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([model, money]) => ({
          date: '2026-11-15',
          model,
          requests: 1,
          cached_requests: 0,
          prompt_tokens: 2,
          completion_tokens: 40,
          total_tokens: 42,
          cached_tokens: 0,
          cache_write_tokens: 0,
          cache_write_1h_tokens: 0,
          reasoning_tokens: 0,
          cost_usd: money.cost,
          upstream_cost_usd: money.list,
          list_cost_usd: money.list,
          savings_usd: money.savings,
        })),
      `${who}: one row per model at the hand-computed figures`,
    );
    // gamma: 2 × 0.0001 + 2 × 0.00008 + 0.00006 + 0.00016 = 0.00058 (upstream 2 × 0.00020125 + 2 × 0.000161 + 0.00012075 + 0.000322 = 0.00116725);
    // alpha: 0.0003 + 0.00006 + 0.0000052 = 0.0003652 (upstream 0.000606 + 0.0001212 + 0.0000101 = 0.0007373);
    // beta: 0.00007 + 0.00000152 = 0.00007152 (upstream 0.000141168 + 0.000003026 = 0.000144194).
    // Upstream 0.00116725 + 0.0007373 + 0.000144194 = 0.002048744: the 0.002033 of output at list
    // prices and 22 prompt tokens' 0.000015744 (2 × the eleven input list prices).
    t.same(body.totals, {
      requests: 11,
      cached_requests: 0,
      prompt_tokens: 22,
      completion_tokens: 440,
      total_tokens: 462,
      cached_tokens: 0,
      cache_write_tokens: 0,
      cache_write_1h_tokens: 0,
      reasoning_tokens: 0,
      cost_usd: '0.00101672',
      upstream_cost_usd: '0.002048744',
      list_cost_usd: '0.002048744',
      savings_usd: '0.001032024',
    });
    const rows = db.rows(key.id);
    t.equal(rows.length, 11);
    for (const row of rows) {
      t.match(row, {
        family: row.model.split('-')[0],
        endpoint: 'chat.completions',
        stream,
        status: 200,
        outcome: 'ok',
        attempts: 1,
        completion_tokens: 40,
        usage_estimated: 0,
        cycle: '2026-11',
        admitted_at: Date.parse('2026-11-15T12:00:00Z'),
      });
      t.type(row.upstream_ms, 'number');
      if (stream) t.type(row.ttft_ms, 'number', 'streams record their time to first token');
    }
    t.same(
      rows.map((row) => [row.model, row.charged_nano, row.list_nano]),
      Object.entries(FORTY_TOKENS).map(([model, money]) => [model, ...money.nanos]),
      `${who}: exact nano-dollars in storage, the upstream cost with its prompt tokens`,
    );
  }
});

t.test('an answered call is committed before its last byte reaches the caller', async (t) => {
  const h = await startHarness(t);
  const { id, key } = await h.createKey();
  const db = openLedgerDb(h.dbPath);
  t.teardown(() => db.close());
  const client = h.client(key);
  let visible = 0;
  for (let i = 0; i < 10; i++) {
    if (i % 2) {
      await drain(await client.chat.completions.create({ model: 'gamma-5.2', stream: true, messages: ask('x [[sim:tokens=3]]') }));
    } else {
      await client.chat.completions.create({ model: 'gamma-5.2', messages: ask('x [[sim:tokens=3]]') });
    }
    // Read at once from another connection, without waiting: the row must be there already.
    if (db.rows(id).length === i + 1) visible += 1;
  }
  t.equal(visible, 10, 'every answered call was already in the database');
  await client.completions.create({ model: 'gamma-5.4', prompt: 'Once upon a time', max_tokens: 5 });
  await client.embeddings.create({ model: 'gamma-5.4', input: 'alpha beta' });
  // 4 prompt tokens ("Once upon a time") × 625 + 5 × 5000 = 27 500 upstream; embeddings: 2 × 625.
  t.match(
    db.rows(id).slice(-2),
    [
      { endpoint: 'completions', prompt_tokens: 4, completion_tokens: 5, charged_nano: 12_500, list_nano: 27_500 },
      { endpoint: 'embeddings', prompt_tokens: 2, completion_tokens: 0, charged_nano: 0, list_nano: 1_250 },
    ],
    'legacy completions and embeddings are in the ledger too, their prompt tokens in the upstream cost',
  );
});

t.test('a caller that leaves mid-stream: the upstream is cut and the call is billed for what was relayed', async (t) => {
  const h = await startHarness(t, { clock: new FakeClock() });
  h.gamma.chunkDelayMs = 20; // 200 pieces would take 4 s
  const { id, key } = await h.createKey({ monthly_ceiling_usd: '5.00' });
  const db = openLedgerDb(h.dbPath);
  t.teardown(() => db.close());

  const stream = await h.client(key).chat.completions.create({ model: 'gamma-5.4', stream: true, messages: ask('long [[sim:tokens=200]]') });
  let received = 0;
  for await (const chunk of stream) {
    if (chunk.choices[0]?.delta.content) received += 1;
    if (received === 5) break; // leaving the loop aborts the request
  }
  const left = Date.now();
  let rows = db.rows(id);
  while (rows.length === 0 && Date.now() - left < 3000) {
    await new Promise((r) => setTimeout(r, 20));
    rows = db.rows(id);
  }
  const elapsed = Date.now() - left;
  t.equal(rows.length, 1, 'the call is in the ledger');
  const row = rows[0];
  t.match(row, { outcome: 'client_disconnected', status: 499, stream: 1, usage_estimated: 1 });
  t.ok(row && row.completion_tokens >= 5 && row.completion_tokens < 200, `billed the ${row?.completion_tokens} pieces relayed, not the 200 planned`);
  t.equal(row?.charged_nano, (row?.completion_tokens ?? -1) * 2500, 'at the charged price');
  t.equal(row?.list_nano, (row?.completion_tokens ?? -1) * 5000 + (row?.prompt_tokens ?? -1) * 625, 'at the list prices, output and input');
  t.ok(elapsed < 2000, `settled ${elapsed} ms after the caller left, long before the stream would have ended`);
  const after = await usage(h, key);
  t.equal(after.cycle['reserved_usd'], '0.00', 'its reservation was settled');
  t.equal(after.cycle['spent_usd'], after.totals.cost_usd);
});

t.test('failures: upstream errors and timeouts cost nothing, a stream cut by the upstream is billed for its relayed part', async (t) => {
  const h = await startHarness(t, { clock: new FakeClock(), env: { GATEWAY_UPSTREAM_TIMEOUT_MS: '300', GATEWAY_RETRY_MAX: '0' } });
  const { id, key } = await h.createKey();
  const db = openLedgerDb(h.dbPath);
  t.teardown(() => db.close());
  const client = h.client(key);

  const statusOf = (pending: Promise<unknown>): Promise<number | undefined> =>
    pending.then(
      () => 200,
      (error: unknown) => (error instanceof OpenAI.APIError ? error.status : undefined),
    );
  t.equal(await statusOf(client.chat.completions.create({ model: 'gamma-5.4', messages: ask('x [[sim:status=500]]') })), 502);
  t.equal(await statusOf(client.chat.completions.create({ model: 'gamma-5.4', messages: ask('x [[sim:delay_ms=2000]]') })), 504);
  const cut = await client.chat.completions.create({ model: 'gamma-5.4', stream: true, messages: ask('x [[sim:tokens=20]] [[sim:reset_after=6]]') });
  await t.rejects(drain(cut), 'the caller sees the stream fail');
  t.equal(await statusOf(client.chat.completions.create({ model: 'gamma-5.4', messages: [] })), 400);

  const rows = db.rows(id);
  t.equal(rows.length, 3, 'a call refused before any upstream is not in the ledger');
  t.match(rows[0], { status: 502, outcome: 'upstream_error', completion_tokens: 0, charged_nano: 0 });
  t.match(rows[1], { status: 504, outcome: 'timeout', completion_tokens: 0, charged_nano: 0 });
  t.match(rows[2], { status: 200, stream: 1, outcome: 'upstream_error', usage_estimated: 1 });
  t.ok((rows[2]?.completion_tokens ?? 0) > 0 && (rows[2]?.completion_tokens ?? 0) < 20, 'the relayed pieces of the cut stream');
  t.equal(rows[2]?.charged_nano, (rows[2]?.completion_tokens ?? -1) * 2500);
});

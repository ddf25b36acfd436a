import t from 'tap';
import { formatUsd, parseUsd } from '../../src/catalogue/money.js';
import { chatBody, FakeClock, startHarness, type Harness } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';

/**
 * A key's monthly upstream cost limit, end to end over HTTP against the real gateway: what the
 * issue reported (a key with a $0.001 ceiling sent 40 prompts of 1 MiB to the most expensive
 * alpha model, all admitted, because input is free to callers) now stops at the upstream
 * limit, before the upstream is called. The reservation holds the request's size in bytes as
 * its prompt tokens (an upper bound: a text token is at least one byte) plus max_tokens, at
 * the vendor's list prices; the ledger row settles it to the real usage.
 */

/** alpha-opus-4.6's list prices in nano-dollars per token: $3.00 and $15.00 per 1M (config/models.yaml). */
const OPUS = { input: 3000, output: 15_000, charged: 7500 };

async function post(h: Harness, key: string, body: string): Promise<{ status: number; json: { error?: { code: string; type: string; message: string } } }> {
  const res = await fetch(`${h.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, json: (await res.json()) as { error?: { code: string; type: string; message: string } } };
}

async function usage(h: Harness, key: string): Promise<{ cycle: Record<string, string | null>; totals: Record<string, unknown> }> {
  const res = await fetch(`${h.baseURL}/usage`, { headers: { authorization: `Bearer ${key}` } });
  return (await res.json()) as { cycle: Record<string, string | null>; totals: Record<string, unknown> };
}

t.test(
  '40 prompts of 1 MiB to alpha-opus-4.6 under a $0.001 ceiling and a $5.00 upstream limit: refused once the limit is reached, without an upstream call',
  async (t) => {
    const h = await startHarness(t, { clock: new FakeClock() });
    const { id, key } = await h.createKey({ name: 'flood', monthly_ceiling_usd: '0.001', monthly_upstream_limit_usd: '5.00' });
    const words = 209_715; // "word " × 209 715 = 1 048 575 bytes: the simulator counts one prompt token per word.
    const body = chatBody('alpha-opus-4.6', { max_tokens: 1, messages: [{ role: 'user', content: 'word '.repeat(words) }] });
    const bytes = Buffer.byteLength(body);
    t.ok(bytes > 1024 * 1024 - 100 && bytes < 1024 * 1024 + 100, `a 1 MiB request (${bytes} bytes)`);

    // Reserved per call: 1 048 6xx bytes × 3000 + 1 × 15 000 ≈ $3.146. Costs: 209 715 × 3000 + 1 × 15 000 = $0.62916.
    // Admitted while spent + $3.146 ≤ $5.00: at 0, $0.629 and $1.258 (→ $4.40); at $1.887 (→ $5.03) refused. Three calls.
    const bound = bytes * OPUS.input + OPUS.output;
    const cost = words * OPUS.input + 1 * OPUS.output;
    const limit = parseUsd('5.00');
    let expected = 0;
    while (expected * cost + bound <= limit) expected++;
    t.equal(expected, 3, 'by hand: three calls fit');
    t.ok(40 * OPUS.charged < parseUsd('0.001'), 'the ceiling alone would admit all 40 (input is charged nothing)');

    const before = h.alpha.requests.length;
    const results = [];
    for (let i = 0; i < 40; i++) results.push(await post(h, key, body));
    const statuses = results.map((r) => r.status);
    t.same(statuses, [...Array<number>(expected).fill(200), ...Array<number>(40 - expected).fill(402)], `${expected} answered, then every one refused`);
    t.equal(h.alpha.requests.length - before, expected, 'the refused calls never reached the upstream');
    const refusal = results[expected]?.json.error;
    t.match(refusal, { type: 'quota_exceeded', code: 'monthly_upstream_limit_exceeded' }, 'the 402 family of the ceiling, the code naming the upstream limit');
    t.match(refusal?.message, 'monthly upstream cost limit of this API key, $5.00');
    t.match(refusal?.message, `upstream cost at the vendors' list prices $${formatUsd(expected * cost)}`, 'with what the calls cost upstream');
    t.notMatch(refusal?.message, 'spend ceiling', 'the ceiling did not refuse');

    const ledger = openLedgerDb(h.dbPath);
    t.teardown(() => ledger.close());
    const rows = ledger.rows(id);
    t.same(
      rows.map((row) => [row.prompt_tokens, row.completion_tokens, row.charged_nano, row.list_nano]),
      Array(expected).fill([words, 1, OPUS.charged, cost]),
      'each row: the upstream cost beside the charged cost, exactly',
    );
    const report = await usage(h, key);
    t.match(
      report.cycle,
      {
        ceiling_usd: '0.001',
        spent_usd: formatUsd(expected * OPUS.charged),
        upstream_limit_usd: '5.00',
        upstream_spent_usd: formatUsd(expected * cost),
        upstream_reserved_usd: '0.00',
        upstream_remaining_usd: formatUsd(limit - expected * cost),
      },
      'the key sees its upstream cost and what is left of its limit',
    );

    t.equal((await post(h, key, chatBody('alpha-opus-4.6', { max_tokens: 1 }))).status, 200, 'a small request still fits what is left');
    t.equal((await h.admin('PATCH', `/keys/${id}`, { monthly_upstream_limit_usd: null })).status, 200);
    t.equal((await post(h, key, body)).status, 200, 'with the limit cleared the ceiling alone decides: admitted');
  },
);

t.test('30 concurrent calls whose upstream reservations fit exactly 5: exactly 5 reach the upstream', async (t) => {
  const h = await startHarness(t, { clock: new FakeClock() });
  // gamma-5.4: $0.625 and $5.00 per 1M at list: bytes × 625 + 4 × 5000 each; the limit is five of them.
  // The upstream holds every answer 1.5 s, so the admitted calls are in flight while the rest are decided.
  const body = chatBody('gamma-5.4', { max_tokens: 4, messages: [{ role: 'user', content: 'go [[sim:delay_ms=1500]]' }] });
  const bound = Buffer.byteLength(body) * 625 + 4 * 5000;
  for (const [round, slack] of [
    [0, 0],
    [1, bound - 1],
  ] as const) {
    const { key } = await h.createKey({ name: `round ${round}`, monthly_upstream_limit_usd: formatUsd(5 * bound + slack) });
    const before = h.gamma.requests.length;
    const results = await Promise.all(Array.from({ length: 30 }, () => post(h, key, body)));
    const codes = new Set(results.filter((r) => r.status === 402).map((r) => r.json.error?.code));
    t.same(
      [results.filter((r) => r.status === 200).length, results.filter((r) => r.status === 402).length, [...codes]],
      [5, 25, ['monthly_upstream_limit_exceeded']],
      `a limit of 5 reservations${slack ? ' + one nano-dollar short of a sixth' : ''}: exactly 5 admitted, 25 refused`,
    );
    t.equal(h.gamma.requests.length - before, 5, 'and only those reached the upstream');
    t.equal((await usage(h, key)).cycle['upstream_reserved_usd'], '0.00', 'every reservation settled');
  }
});

t.test('a request that asks for prompt caching reserves its prompt at the cache-write rate: a limit the input price fits refuses it', async (t) => {
  const h = await startHarness(t, { clock: new FakeClock() });
  // alpha-sonnet-4.6 at list: input $0.60, cache_write $0.75, cache_write_1h $1.20, output $3.00 per 1M.
  const SONNET = { input: 600, write1h: 1200, output: 3000 };
  const maxTokens = 16;
  const text = 'word '.repeat(2000);
  const bodies: Array<[string, Record<string, unknown>, boolean]> = [
    ['no caching asked', { messages: [{ role: 'user', content: text }] }, false],
    ['a breakpoint for an hour', { messages: [{ role: 'user', content: [{ type: 'text', text, cache_control: { type: 'ephemeral', ttl: '1h' } }] }] }, true],
    ['a five-minute breakpoint', { messages: [{ role: 'user', content: [{ type: 'text', text, cache_control: { type: 'ephemeral' } }] }] }, true],
    ['automatic caching (prompt_cache_key)', { prompt_cache_key: 'session-1', messages: [{ role: 'user', content: text }] }, true],
  ];
  for (const [what, extra, dearer] of bodies) {
    const body = chatBody('alpha-sonnet-4.6', { max_tokens: maxTokens, ...extra });
    const bytes = Buffer.byteLength(body);
    const atInput = bytes * SONNET.input + maxTokens * SONNET.output;
    const atWrite = bytes * SONNET.write1h + maxTokens * SONNET.output;
    // Between the two bounds: the prompt fits at the input price, not written to the cache for an hour.
    const { key } = await h.createKey({ name: what, monthly_upstream_limit_usd: formatUsd(Math.floor((atInput + atWrite) / 2)) });
    const result = await post(h, key, body);
    if (!dearer) {
      t.equal(result.status, 200, `${what}: admitted, its prompt reserved at the input price`);
      continue;
    }
    t.equal(result.status, 402, `${what}: refused`);
    t.match(result.json.error?.message, `may cost up to $${formatUsd(atWrite)} upstream`, `${what}: its prompt reserved at the hour's write rate`);
  }
});

import t from 'tap';
import { definePlugin } from '../../src/chain/plugin.js';
import { GatewayError } from '../../src/http/errors.js';
import { chatBody, FakeClock, startHarness, type Harness } from '../helpers/harness.js';

/**
 * gamma-5.4 charges $2.50 per 1M output tokens = 2500 nano-dollars per token. With
 * max_tokens 4 a call reserves 10 000 nano-dollars and (the simulator honours max_tokens)
 * costs exactly that, so a ceiling of $0.0001 covers exactly 10 calls.
 */
const TEN_CALLS_USD = '0.0001';

interface Usage {
  totals: { requests: number; completion_tokens: number; cost_usd: string };
  cycle: { start: string; end: string; ceiling_usd: string | null; spent_usd: string; reserved_usd: string; remaining_usd: string | null };
}

async function usageOf(h: Harness, key: string): Promise<Usage> {
  const res = await fetch(`${h.baseURL}/usage`, { headers: { authorization: `Bearer ${key}` } });
  if (res.status !== 200) throw new Error(`usage answered ${res.status}`);
  return (await res.json()) as Usage;
}

/** One chat call over plain HTTP: its status, and for a 200 whether the whole reply (or [DONE]) arrived. */
async function call(h: Harness, key: string, body: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${h.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, text: await res.text() };
}

t.test('60 simultaneous calls against a ceiling that covers exactly 10: exactly 10 answered, 20 rounds', async (t) => {
  const h = await startHarness(t, { clock: new FakeClock() });
  const started = Date.now();
  for (let round = 0; round < 20; round++) {
    const { key } = await h.createKey({ name: `round ${round}`, monthly_ceiling_usd: TEN_CALLS_USD });
    // The upstream waits before answering, so the admitted calls are still in flight while
    // the rest are decided: only the reservations can refuse them.
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        call(
          h,
          key,
          chatBody('gamma-5.4', {
            max_tokens: 4,
            stream: i % 2 === 0,
            messages: [{ role: 'user', content: 'go [[sim:delay_ms=40]]' }],
          }),
        ),
      ),
    );
    const answered = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 402);
    const complete = answered.filter((r) => r.text.endsWith('data: [DONE]\n\n') || r.text.includes('"finish_reason":"length"'));
    const codes = new Set(refused.map((r) => JSON.parse(r.text).error.code as string));
    const usage = await usageOf(h, key);
    const exact =
      answered.length === 10 &&
      complete.length === 10 &&
      refused.length === 50 &&
      codes.size === 1 &&
      codes.has('monthly_cap_exceeded') &&
      usage.cycle.spent_usd === TEN_CALLS_USD &&
      usage.cycle.reserved_usd === '0.00' &&
      usage.totals.requests === 10;
    if (!exact) {
      t.fail(
        `round ${round}: ${answered.length} answered (${complete.length} complete), ${refused.length} refused, codes ${[...codes].join(',')}, usage ${JSON.stringify(usage.cycle)}`,
      );
      return;
    }
  }
  t.pass('20 rounds: each exactly 10 × 200 and 50 × 402, spent exactly the ceiling, nothing left reserved');
  t.ok(Date.now() - started < 40_000, `bounded in time (${Date.now() - started} ms)`);
});

t.test('402 names the ceiling and the cycle end; other keys are untouched; a new cycle starts afresh', async (t) => {
  const clock = new FakeClock(Date.parse('2026-11-30T23:59:00Z'));
  const h = await startHarness(t, { clock });
  const capped = await h.createKey({ name: 'capped', monthly_ceiling_usd: '0.00001' }); // 10 000 nanos: one call of 4 tokens
  const other = await h.createKey({ name: 'other', monthly_ceiling_usd: '0.00001' });
  const unlimited = await h.createKey({ name: 'unlimited' });
  const body = chatBody('gamma-5.4', { max_tokens: 4 });

  t.equal((await call(h, capped.key, body)).status, 200, 'the first call fits');
  const refused = await call(h, capped.key, body);
  t.equal(refused.status, 402);
  const error = JSON.parse(refused.text).error;
  t.equal(error.type, 'quota_exceeded');
  t.equal(error.code, 'monthly_cap_exceeded');
  t.equal(error.param, null);
  t.match(error.message, '$0.00001', 'the ceiling');
  t.match(error.message, '2026-12-01T00:00:00.000Z', 'the end of the cycle: the first instant of the next UTC month');
  t.match(error.message, 'has been reached');

  t.equal((await call(h, other.key, body)).status, 200, 'another key with its own ceiling is untouched');
  t.equal((await call(h, unlimited.key, body)).status, 200, 'a key without a ceiling is untouched');

  const november = await usageOf(h, capped.key);
  t.same(november.cycle, {
    start: '2026-11-01T00:00:00.000Z',
    end: '2026-12-01T00:00:00.000Z',
    ceiling_usd: '0.00001',
    spent_usd: '0.00001',
    reserved_usd: '0.00',
    remaining_usd: '0.00',
    // No upstream limit: its figures are shown, gamma-5.4's 4 tokens and 2 prompt words at list prices (4 × 5000 + 2 × 625).
    upstream_limit_usd: null,
    upstream_spent_usd: '0.00002125',
    upstream_reserved_usd: '0.00',
    upstream_remaining_usd: null,
  });

  clock.advance(60_000); // 2026-12-01T00:00:00Z
  t.equal((await call(h, capped.key, body)).status, 200, 'the December cycle starts with nothing spent');
  const december = await usageOf(h, capped.key);
  t.equal(december.cycle.start, '2026-12-01T00:00:00.000Z');
  t.equal(december.cycle.spent_usd, '0.00001');
  t.equal(december.totals.requests, 2, 'the 30-day ledger still holds the November call');
});

t.test('the reservation: max_tokens × n, else the catalogue maximum; the ceiling can be raised and removed', async (t) => {
  const h = await startHarness(t, { clock: new FakeClock() });
  // gamma-5.4: max_output_tokens 128000 × 2500 nanos = $0.32 when max_tokens is unset.
  const { id, key } = await h.createKey({ monthly_ceiling_usd: '0.319999999' });
  const unset = await call(h, key, chatBody('gamma-5.4'));
  t.equal(unset.status, 402, 'no max_tokens: the catalogue maximum does not fit');
  t.match(JSON.parse(unset.text).error.message, 'may cost up to $0.32', 'the message says what the request needs');
  t.match(JSON.parse(unset.text).error.message, 'lower max_tokens');
  t.equal((await call(h, key, chatBody('gamma-5.4', { max_completion_tokens: 100 }))).status, 200, 'max_completion_tokens counts');

  const { key: small } = await h.createKey({ monthly_ceiling_usd: '0.00002' }); // 20 000 nanos = 8 tokens
  t.equal((await call(h, small, chatBody('gamma-5.4', { max_tokens: 4, n: 3 }))).status, 402, 'n = 3 choices of 4 tokens need 30 000');
  t.equal((await call(h, small, chatBody('gamma-5.4', { max_tokens: 4, n: 2 }))).status, 200, 'n = 2 choices need 20 000: fits exactly');
  t.equal((await call(h, small, chatBody('gamma-5.4', { max_tokens: 1 }))).status, 402, 'spent 20 000 of 20 000: reached');

  t.equal((await h.admin('PATCH', `/keys/${id}`, { monthly_ceiling_usd: '1.00' })).status, 200);
  t.equal((await call(h, key, chatBody('gamma-5.4'))).status, 200, 'a raised ceiling admits at once');
  t.equal((await h.admin('PATCH', `/keys/${id}`, { monthly_ceiling_usd: '0.00' })).status, 200);
  t.equal((await call(h, key, chatBody('gamma-5.4', { max_tokens: 1 }))).status, 402, 'a ceiling of zero admits nothing');
  t.equal((await h.admin('PATCH', `/keys/${id}`, { monthly_ceiling_usd: null })).status, 200);
  t.equal((await call(h, key, chatBody('gamma-5.4', { max_tokens: 1 }))).status, 200, 'no ceiling, no limit');
  const usage = await usageOf(h, key);
  t.equal(usage.cycle.ceiling_usd, null);
  t.equal(usage.cycle.remaining_usd, null);
});

t.test('reservations of calls that fail or are refused later are released', async (t) => {
  // A test plugin after the ceiling refuses calls that ask for it: the ceiling has reserved by then.
  const refuser = definePlugin({
    name: 'refuser',
    setup: () => ({
      onRequest(call) {
        if (call.endpoint.upstream && call.body['user'] === 'refuse-me') throw new GatewayError(400, 'refused by a later plugin');
      },
    }),
  });
  const h = await startHarness(t, {
    clock: new FakeClock(),
    registered: { refuser },
    plugins: ['ingress-chat', 'auth', 'model-normalise', 'scope', 'ceiling', 'refuser', 'vendor-gamma', 'ledger'].map((name) => ({
      name,
      enabled: true,
      config: {},
    })),
  });
  const { key } = await h.createKey({ monthly_ceiling_usd: '0.00001' }); // one call of 4 tokens
  const body = (extra: Record<string, unknown>): string => chatBody('gamma-5.4', { max_tokens: 4, ...extra });

  for (let i = 0; i < 3; i++) {
    t.equal((await call(h, key, body({ user: 'refuse-me' }))).status, 400, 'refused after the reservation');
    t.equal((await call(h, key, body({ messages: [{ role: 'user', content: 'x [[sim:status=500]]' }] }))).status, 502, 'upstream failure');
  }
  const between = await usageOf(h, key);
  t.equal(between.cycle.reserved_usd, '0.00', 'nothing held');
  t.equal(between.cycle.spent_usd, '0.00', 'failures the upstream did not bill cost nothing');
  t.equal(between.totals.requests, 3, 'the upstream failures are in the ledger; the refusals never reached an upstream');
  t.equal((await call(h, key, body({}))).status, 200, 'the whole ceiling is still there');
  t.equal((await call(h, key, body({}))).status, 402);
});

t.test('the ceiling plugin refuses to start without the ledger after it', async (t) => {
  await t.rejects(
    startHarness(t, { plugins: ['auth', 'model-normalise', 'scope', 'ceiling', 'vendor-gamma'].map((name) => ({ name, enabled: true, config: {} })) }),
    { message: /gateway\.yaml: \/plugins\/\d+: plugin "ceiling" needs "ledger" listed after it/ },
  );
  await t.rejects(
    startHarness(t, { plugins: ['auth', 'model-normalise', 'ledger', 'ceiling', 'vendor-gamma'].map((name) => ({ name, enabled: true, config: {} })) }),
    { message: /gateway\.yaml: \/plugins\/\d+: plugin "ceiling" needs "ledger" listed after it/ },
  );
});

t.test('a call in flight keeps its reservation past the lease: the heartbeat renews it; a completed one holds nothing', async (t) => {
  // A one-second lease, renewed every 250 ms of real time (the clock is the system's here).
  const h = await startHarness(t, { env: { GATEWAY_LEASE_MS: '1000' } });
  const { key } = await h.createKey({ monthly_ceiling_usd: '0.00001' });
  const body = (prompt: string): string => chatBody('gamma-5.4', { max_tokens: 4, messages: [{ role: 'user', content: prompt }] });
  const slow = call(h, key, body('slow [[sim:delay_ms=2500]]'));
  await new Promise((resolve) => setTimeout(resolve, 1800));
  const meanwhile = await call(h, key, body('meanwhile'));
  t.equal(meanwhile.status, 402, 'the slow call still holds the whole ceiling, 1.8 s into a 1 s lease');
  t.match(meanwhile.text, /held by requests in flight \$0\.00001/);
  t.equal((await slow).status, 200);
  const usage = await usageOf(h, key);
  t.same([usage.cycle.spent_usd, usage.cycle.reserved_usd], ['0.00001', '0.00'], 'settled: spent, nothing held');
});

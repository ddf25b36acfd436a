import t from 'tap';
import { FakeClock, raw, startHarness, type Harness } from '../helpers/harness.js';
import { pluginConfig, SHORT_CADENCE } from '../helpers/ops.js';
import { usage } from '../helpers/usage.js';

/**
 * With a sibling fallback configured, the ceiling's reservation covers the dearer of the model
 * asked and the sibling that may answer instead (docs/money.md, docs/operations.md): a call is
 * admitted only when the key's limits cover the sibling too, and is never billed above them.
 *
 * gamma-5.2 charges $2.00 per 1M output tokens (2000 nano-dollars a token), its sibling here
 * gamma-5.1-code-max $4.00 (4000): 1000 tokens cost $0.002 on the one, $0.004 on the other.
 */

const FALLBACK = { gamma: { 'gamma-5.2': 'gamma-5.1-code-max' }, alpha: { 'alpha-sonnet-4.6': 'alpha-haiku-4.5' } };

async function harness(t: Parameters<typeof startHarness>[0]): Promise<Harness> {
  return startHarness(t, { clock: new FakeClock(), configure: pluginConfig('retry', { cadence: SHORT_CADENCE, fallback: FALLBACK }) });
}

const chat = (h: Harness, key: string, model: string, maxTokens: number, tokens = maxTokens) =>
  raw(h.origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, max_tokens: maxTokens, messages: [{ role: 'user', content: `go [[sim:tokens=${tokens}]]` }] }),
  });

const cycleOf = async (h: Harness, key: string) => (await usage(h, key)).cycle;

t.test('the audit repro: admitted only when the ceiling covers the dearer sibling, never billed above it', async (t) => {
  const h = await harness(t);

  // $0.002 covers 1000 tokens of gamma-5.2, not of gamma-5.1-code-max: refused before any upstream.
  const tight = await h.createKey({ monthly_ceiling_usd: '0.002' });
  h.gamma.faults.push({ status: 503 });
  const refused = await chat(h, tight.key, 'gamma-5.2', 1000);
  t.equal(refused.status, 402, 'the sibling may answer: its worst case does not fit');
  t.match(refused.json().error, { code: 'monthly_cap_exceeded', message: /may cost up to \$0\.004\b/ });
  t.equal(h.gamma.requests.length, 0, 'nothing reached the upstream');
  t.has(await cycleOf(h, tight.key), { spent_usd: '0.00', reserved_usd: '0.00' }, 'never billed above the ceiling');
  h.gamma.faults.length = 0;

  // $0.004 covers the sibling: the 503 hands the call over, and the bill is exactly the ceiling.
  const enough = await h.createKey({ monthly_ceiling_usd: '0.004' });
  h.gamma.faults.push({ status: 503 });
  const answered = await chat(h, enough.key, 'gamma-5.2', 1000);
  t.equal(answered.status, 200);
  t.equal(answered.json().model, 'gamma-5.1-code-max', 'the sibling answered');
  t.same(
    h.gamma.requests.map((r) => JSON.parse(r.body).model),
    ['gamma-5.2', 'gamma-5.1-code-max'],
  );
  t.has(await cycleOf(h, enough.key), { spent_usd: '0.004', reserved_usd: '0.00', remaining_usd: '0.00' }, 'billed the sibling, within the ceiling');
  t.equal((await chat(h, enough.key, 'gamma-5.2', 1)).status, 402, 'the ceiling is reached');

  // The same ceiling when no 503 comes: the model asked answers and bills its own price.
  const calm = await h.createKey({ monthly_ceiling_usd: '0.004' });
  const own = await chat(h, calm.key, 'gamma-5.2', 1000);
  t.equal(own.json().model, 'gamma-5.2');
  t.has(await cycleOf(h, calm.key), { spent_usd: '0.002', reserved_usd: '0.00' });

  // A key that may not use the sibling reserves for its own model only, and is retried on it.
  const scoped = await h.createKey({ monthly_ceiling_usd: '0.002', models: ['gamma-5.2'] });
  h.gamma.faults.push({ status: 503 });
  const retried = await chat(h, scoped.key, 'gamma-5.2', 1000);
  t.equal(retried.status, 200, "admitted on its own model's worst case");
  t.equal(retried.json().model, 'gamma-5.2', 'never answered by the sibling');
  t.has(await cycleOf(h, scoped.key), { spent_usd: '0.002', reserved_usd: '0.00' });
});

t.test('the upstream cost limit covers the sibling too', async (t) => {
  const h = await harness(t);
  // 100 tokens at the list prices: gamma-5.2 $4.00 per 1M → 0.0004, gamma-5.1-code-max $8.00 → 0.0008,
  // plus the request's bytes at the input list price ($0.50 and $1.00 per 1M): under 0.0006 and over it.
  const limited = await h.createKey({ monthly_upstream_limit_usd: '0.0006' });
  const refused = await chat(h, limited.key, 'gamma-5.2', 100);
  t.equal(refused.status, 402);
  t.equal(refused.json().error.code, 'monthly_upstream_limit_exceeded');
  t.equal(h.gamma.requests.length, 0);

  const roomy = await h.createKey({ monthly_upstream_limit_usd: '0.001' });
  h.gamma.faults.push({ status: 503 });
  const answered = await chat(h, roomy.key, 'gamma-5.2', 100);
  t.equal(answered.json().model, 'gamma-5.1-code-max');
  const cycle = await cycleOf(h, roomy.key);
  t.ok(Number(cycle['upstream_spent_usd']) <= 0.001, `within the upstream limit (${cycle['upstream_spent_usd']})`);
  t.equal(cycle['upstream_reserved_usd'], '0.00');
});

t.test('a sibling with a lower maximum than the caller asked for is not asked: the model is retried', async (t) => {
  const h = await harness(t);
  const { key } = await h.createKey();
  // alpha-sonnet-4.6 produces up to 128 000 tokens, its sibling alpha-haiku-4.5 64 000.
  h.alpha.faults.push({ status: 529 });
  const over = await chat(h, key, 'alpha-sonnet-4.6', 100_000, 3);
  t.equal(over.status, 200);
  t.equal(over.json().model, 'alpha-sonnet-4.6', 'retried on the model asked');
  t.same(
    h.alpha.requests.map((r) => JSON.parse(r.body).model),
    ['alpha-sonnet-4.6', 'alpha-sonnet-4.6'],
  );

  h.alpha.faults.push({ status: 529 });
  const within = await chat(h, key, 'alpha-sonnet-4.6', 64_000, 3);
  t.equal(within.json().model, 'alpha-haiku-4.5', 'a limit the sibling keeps falls back');
  t.equal(JSON.parse(h.alpha.requests.at(-1)?.body ?? '{}').max_tokens, 64_000);
});

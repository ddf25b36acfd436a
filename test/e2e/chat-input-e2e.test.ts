import t, { type Test } from 'tap';
import { WEATHER_TOOLS } from '../helpers/chat-scenarios.js';
import { dig, type Json } from '../helpers/dig.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import type { Family } from '../helpers/param-table.js';

/**
 * What the chat ingress takes, through the real gateway: every field a caller sends to a legacy
 * completions or embeddings endpoint is sent on, or refused by name (never dropped); null asks
 * nothing; a legacy call with several prompts reserves for the completions of every prompt.
 */

const FAMILIES: readonly Family[] = ['alpha', 'beta', 'gamma'];
const MODELS: Record<Family, string> = { alpha: 'alpha-sonnet-4.6', beta: 'beta-3-flash', gamma: 'gamma-5.4' };
type Path = '/chat/completions' | '/completions' | '/embeddings';
interface Sent {
  status: number;
  json: Json | null;
  /** The body that reached the family's upstream, null when none did. */
  upstream: Json | null;
}

async function send(h: Harness, key: string, family: Family, path: Path, body: Json): Promise<Sent> {
  const sim = h[family];
  const before = sim.requests.length;
  const res = await fetch(`${h.baseURL}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODELS[family], ...body }),
  });
  const text = await res.text();
  const seen = sim.requests.length > before ? sim.requests.at(-1) : undefined;
  return { status: res.status, json: text.startsWith('{') ? (JSON.parse(text) as Json) : null, upstream: seen ? (JSON.parse(seen.body) as Json) : null };
}

/** A 400 naming `param`, before any upstream request. */
function refused(t: Test, got: Sent, param: string, label: string): void {
  t.same([got.status, dig(got.json, 'error', 'param'), got.upstream], [400, param, null], label);
}

/**
 * A 200 whose upstream request is the one without the extra fields (alpha, beta), or the caller's
 * body relayed as it came (gamma).
 */
async function asksNothing(t: Test, h: Harness, key: string, family: Family, path: Path, plain: Json, extra: Json, label: string): Promise<void> {
  const got = await send(h, key, family, path, { ...plain, ...extra });
  const without = await send(h, key, family, path, plain);
  t.equal(got.status, 200, `${label} [${family}]: ${JSON.stringify(dig(got.json, 'error') ?? '')}`);
  const expected = family === 'gamma' ? { ...plain, ...extra, model: without.upstream?.['model'] } : without.upstream;
  t.same(got.upstream, expected, `${label} [${family}]: ${family === 'gamma' ? 'relayed as it came' : 'the upstream request is the one without it'}`);
}

t.test('legacy completions: a reservation for every prompt, refused before any upstream when it does not fit', async (t) => {
  const h = await startHarness(t);
  // gamma-5.4 charges 2500 nano-dollars per output token: one prompt of 1000 tokens (2.5 m) fits 3 m, three do not.
  const capped = async (): Promise<string> => (await h.createKey({ monthly_ceiling_usd: '0.003' })).key;
  for (const prompt of [
    ['a', 'b', 'c'],
    [[1], [2], [3]],
  ]) {
    const got = await send(h, await capped(), 'gamma', '/completions', { prompt, max_tokens: 1000 });
    t.same([got.status, dig(got.json, 'error', 'code'), got.upstream], [402, 'monthly_cap_exceeded', null], `${JSON.stringify(prompt)}: 402, no upstream call`);
  }
  for (const prompt of ['a', ['a'], [1, 2, 3]]) {
    t.equal((await send(h, await capped(), 'gamma', '/completions', { prompt, max_tokens: 1000 })).status, 200, `${JSON.stringify(prompt)}: one prompt fits`);
  }
});

t.test('legacy completions: a field that is not a legacy parameter is refused for alpha and beta, relayed by gamma', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const prompt = { prompt: 'Once upon' };
  const foreign: Json = { frobnicate: 1, response_format: { type: 'json_object' }, tools: WEATHER_TOOLS, reasoning_effort: 'low', max_completion_tokens: 5 };
  for (const family of ['alpha', 'beta'] as const) {
    for (const [field, value] of Object.entries(foreign))
      refused(t, await send(h, key, family, '/completions', { ...prompt, [field]: value }), field, `${field} [${family}]`);
    refused(
      t,
      await send(h, key, family, '/completions', { ...prompt, logit_bias: { '50256': -100 } }),
      'logit_bias',
      `logit_bias [${family}]: the chat refusal`,
    );
    t.equal(
      (await send(h, key, family, '/completions', { ...prompt, logit_bias: {}, frobnicate: null })).status,
      200,
      `${family}: an empty logit_bias and null ask nothing`,
    );
  }
  const relayed = { ...prompt, ...foreign, logit_bias: { '50256': -100 } };
  const got = await send(h, key, 'gamma', '/completions', relayed);
  t.same([got.status, got.upstream], [200, { ...relayed, model: got.upstream?.['model'] }], 'gamma: relayed as it came');
});

t.test('null asks nothing, on every family', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const hello = { messages: [{ role: 'user', content: 'Hello there' }] };
  const history = (assistant: Json): Json => ({
    messages: [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello', ...assistant },
      { role: 'user', content: 'Again' },
    ],
  });
  for (const family of FAMILIES) {
    for (const field of ['tools', 'tool_choice', 'response_format', 'user']) {
      await asksNothing(t, h, key, family, '/chat/completions', hello, { [field]: null }, `${field}: null`);
    }
    await asksNothing(t, h, key, family, '/chat/completions', history({}), history({ tool_calls: null }), 'an assistant message with tool_calls: null');
  }
});

t.test('embeddings: a field that is not an embeddings parameter is refused for beta, relayed by gamma', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const input = { input: 'alpha' };
  refused(t, await send(h, key, 'beta', '/embeddings', { ...input, foo: 1 }), 'foo', 'foo [beta]');
  refused(t, await send(h, key, 'beta', '/embeddings', { ...input, task_type: 'RETRIEVAL_QUERY' }), 'task_type', 'task_type [beta]');
  await asksNothing(t, h, key, 'beta', '/embeddings', input, { user: 'u-1' }, 'user: accepted, no effect');
  for (const family of ['beta', 'gamma'] as const) {
    await asksNothing(t, h, key, family, '/embeddings', input, { encoding_format: null, dimensions: null, user: null, foo: null }, 'null values');
  }
  await asksNothing(t, h, key, 'gamma', '/embeddings', input, { foo: 1, task_type: 'RETRIEVAL_QUERY' }, 'unknown fields');
});

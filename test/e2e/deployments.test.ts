import t from 'tap';
import type { DeploymentConfig, GatewayConfig } from '../../src/config/schema.js';
import { definePlugin } from '../../src/plugin-api.js';
import { chatBody, FakeClock, raw, startHarness, type Harness, type HarnessOptions } from '../helpers/harness.js';
import { openLedgerDb } from '../helpers/ledger-db.js';
import { LocalUpstreamHealth } from '../helpers/local-upstream-health.js';
import { mockDeployment, type MockDeployment } from '../helpers/mock-deployment.js';
import { connect } from '../helpers/responses-socket.js';

/**
 * Several deployments of one family (docs/deployments.md): real HTTP servers on 127.0.0.1 as the
 * gamma deployments, each with its own credential; the weighted split, `models`, a failing
 * deployment cooled down and its attempt answered by another at once, Retry-After, `rpm`,
 * affinity, the admin list and a reload.
 */

/** Sets `x-test-affinity` as the call's affinity key, as the ingress plugins set a conversation's identity. */
const affinityFromHeader = definePlugin({
  name: 'affinity-from-header',
  setup: () => ({
    onRequest(call) {
      const key = call.callerHeaders['x-test-affinity'];
      if (typeof key === 'string') call.affinityKey = key;
    },
  }),
});

/** A seeded uniform source (mulberry32): the weighted split is a fixed sequence of draws. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** A gateway whose gamma family is `list` (with `GAMMA_KEY_<i>` credentials), on the in-process health. */
async function gatewayWith(
  t: Parameters<typeof mockDeployment>[0],
  list: Array<Partial<DeploymentConfig> & { name: string; base_url: string }>,
  options: HarnessOptions & { health?: LocalUpstreamHealth; edit?: (config: GatewayConfig) => void } = {},
): Promise<{ h: Harness; key: string }> {
  const env: Record<string, string> = { GAMMA_BASE_URL: '', GAMMA_API_KEY: '' };
  list.forEach((_d, i) => (env[`GAMMA_KEY_${i}`] = `gamma-credential-${i}-secret`));
  const h = await startHarness(t, {
    ...options,
    env: { ...env, ...options.env },
    registered: { 'affinity-from-header': affinityFromHeader },
    configure: (config) => {
      config.upstreams['gamma'] = list.map((d, i) => ({ api_key_env: `GAMMA_KEY_${i}`, weight: 1, ...d }));
      config.plugins.splice(
        config.plugins.findIndex((p) => p.name === 'retry'),
        0,
        { name: 'affinity-from-header', enabled: true, config: {} },
      );
      options.edit?.(config);
    },
  });
  return { h, key: (await h.createKey()).key };
}

const chat = (h: Harness, key: string, headers: Record<string, string> = {}, model = 'gamma-5.4') =>
  raw(h.origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
    body: chatBody(model),
  });

t.test('three deployments weighted 2:1:1 share 400 calls in proportion, each sent its own credential', async (t) => {
  const [a, b, c] = [await mockDeployment(t), await mockDeployment(t), await mockDeployment(t)] as [MockDeployment, MockDeployment, MockDeployment];
  const { h, key } = await gatewayWith(
    t,
    [
      { name: 'a', base_url: a.url, weight: 2 },
      { name: 'b', base_url: b.url },
      { name: 'c', base_url: c.url },
    ],
    { random: seeded(40) },
  );
  const CALLS = 400;
  for (let i = 0; i < CALLS; i += 1) t.equal((await chat(h, key)).status, 200, `call ${i}`, { diagnostic: false });
  t.equal(a.calls + b.calls + c.calls, CALLS);
  t.ok(Math.abs(a.calls / CALLS - 0.5) < 0.05, `a has about half (${a.calls})`);
  t.ok(Math.abs(b.calls / CALLS - 0.25) < 0.05, `b has about a quarter (${b.calls})`);
  t.ok(Math.abs(c.calls / CALLS - 0.25) < 0.05, `c has about a quarter (${c.calls})`);
  t.same(new Set(a.credentials), new Set(['Bearer gamma-credential-0-secret']), "a gets a's credential");
  t.same(new Set(c.credentials), new Set(['Bearer gamma-credential-2-secret']), "c gets c's credential");
});

t.test('a deployment gets only the models it lists', async (t) => {
  const [only52, all] = [await mockDeployment(t), await mockDeployment(t)] as [MockDeployment, MockDeployment];
  const { h, key } = await gatewayWith(t, [
    { name: 'only-5-2', base_url: only52.url, models: ['gamma-5.2'], weight: 1000 },
    { name: 'all', base_url: all.url },
  ]);
  for (let i = 0; i < 10; i += 1) t.equal((await chat(h, key)).status, 200);
  t.equal(only52.calls, 0, 'gamma-5.4 never goes to the deployment of gamma-5.2 only');
  t.equal(all.calls, 10);
  for (let i = 0; i < 5; i += 1) t.equal((await chat(h, key, {}, 'gamma-5.2')).status, 200);
  t.ok(only52.calls >= 4, 'gamma-5.2 goes there by its weight');
});

t.test('a failing deployment: its attempt goes to another at once, then it is cooled down and gets nothing', async (t) => {
  const [bad, good] = [await mockDeployment(t), await mockDeployment(t)] as [MockDeployment, MockDeployment];
  const health = new LocalUpstreamHealth({ fails: 1, windowMs: 30_000, cooldownMs: 30_000 });
  const { h, key } = await gatewayWith(
    t,
    [
      { name: 'bad', base_url: bad.url, weight: 1_000_000 },
      { name: 'good', base_url: good.url },
    ],
    { health },
  );
  bad.failures.push({ status: 503 });
  const started = performance.now();
  const first = await chat(h, key);
  const took = performance.now() - started;
  t.equal(first.status, 200, 'the caller saw a 200');
  t.equal(bad.calls, 1, 'the first attempt went to the heavy deployment');
  t.equal(good.calls, 1, 'and the second to the other');
  t.ok(took < 250, `at once, with no backoff (${Math.round(took)} ms; the cadence's least delay is 250 ms)`);
  t.same(health.failuresSeen, [{ family: 'gamma', deployment: 'bad', retryAfterMs: null }], 'the failure was counted');
  for (let i = 0; i < 5; i += 1) t.equal((await chat(h, key)).status, 200);
  t.equal(bad.calls, 1, 'cooled down: no more calls, whatever its weight');
  t.equal(good.calls, 6);
  const listed = (await (await h.admin('GET', '/deployments')).json()) as { data: Array<{ name: string; health: { cooled_until: string | null } }> };
  t.ok(listed.data.find((d) => d.name === 'bad')?.health.cooled_until, 'the admin list shows the cooldown');
  const ledger = openLedgerDb(h.dbPath);
  t.teardown(() => ledger.close());
  t.same(
    ledger.rows().map((row) => [row.attempts, row.deployment]),
    [[2, 'good'], ...Array.from({ length: 5 }, () => [1, 'good'])],
    'each ledger row names the deployment that answered',
  );
  const metrics = (await raw(h.origin, 'GET', '/metrics')).text;
  t.match(metrics, /gateway_upstream_errors_total\{family="gamma",code="503",deployment="bad"\} 1/, 'the failure, by deployment');
  t.match(metrics, /gateway_upstream_retries_total\{model="gamma-5.4",family="gamma",reason="503",deployment="bad"\} 1/, 'the retry elsewhere');
  t.match(metrics, /gateway_upstream_attempts_total\{model="gamma-5.4",family="gamma",deployment="good"\} 6/, 'attempts, by deployment');
});

t.test("a deployment's Retry-After is honoured: cooled at least that long", async (t) => {
  const [limited, other] = [await mockDeployment(t), await mockDeployment(t)] as [MockDeployment, MockDeployment];
  const { h, key } = await gatewayWith(
    t,
    [
      { name: 'limited', base_url: limited.url, weight: 1_000_000 },
      { name: 'other', base_url: other.url },
    ],
    { edit: (config) => (config.upstream_health = { fails: 1, window_s: 30, cooldown_s: 5 }) },
  );
  limited.failures.push({ status: 429, headers: { 'retry-after': '120' } });
  t.equal((await chat(h, key)).status, 200, 'answered by the other deployment');
  const listed = (await (await h.admin('GET', '/deployments')).json()) as { data: Array<{ name: string; health: { cooled_until: string | null } }> };
  const until = Date.parse(listed.data.find((d) => d.name === 'limited')?.health.cooled_until ?? '');
  t.ok(until - Date.now() > 110_000, 'cooled for the 120 s it asked, not the 5 s cooldown');
});

t.test('rpm: a deployment at its limit passes the call to the next; all out of headroom is a 429 with Retry-After', async (t) => {
  const [capped, spare] = [await mockDeployment(t), await mockDeployment(t)] as [MockDeployment, MockDeployment];
  const clock = new FakeClock(Date.parse('2026-11-15T12:00:10Z'));
  const { h, key } = await gatewayWith(
    t,
    [
      { name: 'capped', base_url: capped.url, weight: 1_000_000, rpm: 2 },
      { name: 'spare', base_url: spare.url, rpm: 2 },
    ],
    { clock },
  );
  for (let i = 0; i < 4; i += 1) t.equal((await chat(h, key)).status, 200);
  t.equal(capped.calls, 2, 'the heavy deployment took its 2 a minute');
  t.equal(spare.calls, 2, 'the rest went to the other');
  const refused = await chat(h, key);
  t.equal(refused.status, 429, 'both at their limit');
  t.equal(refused.headers.get('retry-after'), '50', 'until the next minute');
  t.equal(refused.json().error.type, 'rate_limited', "in the caller's envelope");
  clock.advance(60_000);
  t.equal((await chat(h, key)).status, 200, 'the next minute has headroom again');
});

t.test('an affinity key keeps its deployment while it is healthy, and moves when it is cooled down', async (t) => {
  const mocks = [await mockDeployment(t), await mockDeployment(t), await mockDeployment(t)];
  const health = new LocalUpstreamHealth({ fails: 1, windowMs: 30_000, cooldownMs: 30_000 });
  const { h, key } = await gatewayWith(
    t,
    mocks.map((m, i) => ({ name: `d${i}`, base_url: m.url })),
    { health },
  );
  const turns = async (n: number): Promise<number[]> => {
    const before = mocks.map((m) => m.calls);
    for (let i = 0; i < n; i += 1) t.equal((await chat(h, key, { 'x-test-affinity': 'conversation-7' })).status, 200);
    return mocks.map((m, i) => m.calls - (before[i] as number));
  };
  const first = await turns(8);
  const home = first.indexOf(8);
  t.ok(home >= 0, `every turn went to one deployment (${first.join(', ')})`);
  (mocks[home] as MockDeployment).failures.push({ status: 503 });
  const moved = await turns(8);
  t.equal(moved[home], 1, 'its one failed attempt');
  const next = moved.findIndex((n, i) => i !== home && n === 8);
  t.ok(next >= 0, `the conversation moved to one other deployment and stayed (${moved.join(', ')})`);
});

t.test('the admin list names deployments and their settings, never a credential', async (t) => {
  const [a, b] = [await mockDeployment(t), await mockDeployment(t)] as [MockDeployment, MockDeployment];
  const { h } = await gatewayWith(t, [
    { name: 'east', base_url: a.url, weight: 3, rpm: 100, tpm: 50_000 },
    { name: 'west', base_url: b.url, models: ['gamma-5.4'] },
  ]);
  const res = await h.admin('GET', '/deployments');
  t.equal(res.status, 200);
  const text = await res.text();
  t.notMatch(text, /gamma-credential/, 'no credential');
  t.notMatch(text, /GAMMA_KEY_/, 'not even the variable naming it');
  const gamma = (JSON.parse(text) as { data: Array<Record<string, unknown>> }).data.filter((d) => d['family'] === 'gamma');
  t.match(gamma, [
    { name: 'east', base_url: a.url, weight: 3, rpm: 100, tpm: 50_000, models: null, has_credential: true },
    { name: 'west', base_url: b.url, weight: 1, rpm: null, tpm: null, models: ['gamma-5.4'], has_credential: true },
  ]);
  t.equal((await raw(h.origin, 'GET', '/admin/v1/deployments')).status, 401, 'behind the admin token');
});

t.test('a reload puts a new list in force for new calls', async (t) => {
  const [before, after] = [await mockDeployment(t), await mockDeployment(t)] as [MockDeployment, MockDeployment];
  const health = new LocalUpstreamHealth({ fails: 1, windowMs: 30_000, cooldownMs: 30_000 });
  const { h, key } = await gatewayWith(t, [{ name: 'before', base_url: before.url }], { health });
  t.equal((await chat(h, key)).status, 200);
  h.gateway.reloadDeployments({ ...h.config.upstreams, gamma: [{ name: 'after', base_url: after.url, weight: 1, api_key: 'rotated-secret' }] });
  t.equal((await chat(h, key)).status, 200);
  t.same([before.calls, after.calls], [1, 1], 'the new call went to the new list');
  t.same(after.credentials, ['Bearer rotated-secret'], "with the new deployment's credential");
  h.gateway.reloadDeployments({ ...h.config.upstreams, gamma: [before, after].map((mock, i) => ({ name: `d${i}`, base_url: mock.url, weight: 1 })) });
  t.same(health.choices, [false, false, true], 'the health is told whether a family has a choice: at start and at each reload');
});

t.test('a call in flight during a reload keeps the deployment it holds', async (t) => {
  const [slow, next] = [await mockDeployment(t), await mockDeployment(t)];
  const { h, key } = await gatewayWith(t, [{ name: 'slow', base_url: slow.url }]);
  slow.delayMs = 300;
  const inFlight = chat(h, key);
  await new Promise((r) => setTimeout(r, 100));
  h.gateway.reloadDeployments({ ...h.config.upstreams, gamma: [{ name: 'next', base_url: next.url, weight: 1 }] });
  t.equal((await inFlight).status, 200, 'answered by the deployment it was sent to, removed meanwhile');
  t.same([slow.calls, next.calls], [1, 0]);
  t.equal((await chat(h, key)).status, 200);
  t.same([slow.calls, next.calls], [1, 1], 'the next call goes to the new list');
});

t.test('a conversation stays on one deployment, as its format names it: previous_response_id, the Claude Code session, the Codex session', async (t) => {
  const mocks = [await mockDeployment(t), await mockDeployment(t), await mockDeployment(t)];
  const { h, key } = await gatewayWith(
    t,
    mocks.map((mock, i) => ({ name: `d${i}`, base_url: mock.url })),
  );
  const served = (): number[] => mocks.map((mock) => mock.calls);
  const post = async (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
    const res = await raw(h.origin, 'POST', path, {
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    t.equal(res.status, 200, `${path} answered`, { diagnostic: false });
    return JSON.parse(res.text) as Record<string, unknown>;
  };
  const TURNS = 6;
  /** Runs a conversation's turns and answers the deployments that served them (each with equal weight: 6 turns land on one by chance 1 time in 243). */
  const conversation = async (turn: (i: number) => Promise<void>): Promise<number[]> => {
    const before = served();
    for (let i = 0; i < TURNS; i += 1) await turn(i);
    return served()
      .map((calls, i) => calls - (before[i] as number))
      .filter((calls) => calls > 0);
  };

  let previous: unknown = null;
  const responses = await conversation(async (i) => {
    const body = { model: 'gamma-5.4', input: `turn ${i}`, ...(previous ? { previous_response_id: previous } : {}) };
    previous = (await post('/v1/responses', body))['id'];
  });
  t.same(responses, [TURNS], 'Responses: every turn continued by previous_response_id went to the deployment that answered the first');

  const messages = await conversation(async (i) => {
    const body = { model: 'gamma-5.4', max_tokens: 16, messages: [{ role: 'user', content: `turn ${i}` }] };
    await post('/v1/messages', body, { 'x-claude-code-session-id': 'session-1' });
  });
  t.same(messages, [TURNS], "Messages: every turn of Claude Code's session on one deployment");

  const codex = await conversation(async (i) => {
    await post('/v1/responses', { model: 'gamma-5.4', store: false, input: `turn ${i}`, client_metadata: { session_id: 'codex-1' } });
  });
  t.same(codex, [TURNS], "Responses: every turn of Codex's session on one deployment");

  // WebSocket mode with store: false: the connection keeps its last response and the deployment that answered it.
  const socket = await connect(h.origin, key);
  t.teardown(() => socket.close());
  let last: unknown = null;
  const overSocket = await conversation(async (i) => {
    const messages = await socket.turn({
      type: 'response.create',
      model: 'gamma-5.4',
      store: false,
      input: `turn ${i}`,
      ...(last ? { previous_response_id: last } : {}),
    });
    const done = messages.at(-1) as Record<string, unknown>;
    t.equal(done['type'], 'response.completed', `socket turn ${i} completed`, { diagnostic: false });
    last = (done['response'] as Record<string, unknown>)['id'];
  });
  t.same(overSocket, [TURNS], 'WebSocket mode: every turn continued from the connection went to the deployment that answered the first');
});

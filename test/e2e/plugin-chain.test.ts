import t from 'tap';
import type { Call } from '../../src/chain/call.js';
import { definePlugin } from '../../src/chain/plugin.js';
import type { PluginEntry } from '../../src/config/schema.js';
import { GatewayError } from '../../src/http/errors.js';
import { startHarness } from '../helpers/harness.js';

const DEFAULT_CHAIN: PluginEntry[] = ['ingress-chat', 'auth', 'model-normalise', 'scope', 'vendor-gamma'].map((name) => ({ name, enabled: true, config: {} }));
const entry = (name: string, config: Record<string, unknown> = {}): PluginEntry => ({ name, enabled: true, config });

interface Seen {
  phase: string;
  outcome?: string;
  status?: number;
  usage?: Call['usage'];
  key?: string | undefined;
  model?: string | undefined;
}

/** A test plugin that records every hook it sees, and can refuse calls from onRequest. */
function recorder(seen: Seen[], refuse?: (call: Call) => boolean) {
  return definePlugin({
    name: 'recorder',
    setup() {
      return {
        onRequest(call) {
          seen.push({ phase: 'request', key: call.key?.id, model: call.model?.id });
          if (refuse?.(call)) throw new GatewayError(429, 'refused by recorder');
        },
        onUpstreamRequest(call, request) {
          seen.push({ phase: 'upstream-request', model: JSON.parse(request.body.toString()).model });
        },
        onUpstreamResponse(_call, head) {
          seen.push({ phase: 'upstream-response', status: head.status });
        },
        onResponseChunk() {
          if (seen.at(-1)?.phase !== 'chunk') seen.push({ phase: 'chunk' });
        },
        onComplete(call) {
          seen.push({ phase: 'complete', outcome: call.outcome, status: call.status, usage: call.usage });
        },
        routes(router) {
          router.get('/recorder', (_req, res) => void res.json({ seen: seen.length }));
        },
        adminRoutes(router) {
          router.get('/recorder', (_req, res) => void res.json({ admin: true }));
        },
      };
    },
  });
}

t.test('a plugin listed in YAML sees every phase, with a shared context, completion exactly once', async (t) => {
  const seen: Seen[] = [];
  const h = await startHarness(t, {
    plugins: [...DEFAULT_CHAIN.slice(0, 4), entry('recorder'), DEFAULT_CHAIN[4] as PluginEntry],
    registered: { recorder: recorder(seen, (call) => call.outline.model === 'gamma-5.2') },
  });
  const { key, id } = await h.createKey();
  const client = h.client(key);

  await client.chat.completions.create({ model: 'gamma-5-4', messages: [{ role: 'user', content: 'x [[sim:tokens=2]]' }] });
  t.same(
    seen.map((s) => s.phase),
    ['request', 'upstream-request', 'upstream-response', 'complete', 'chunk'],
    'phases in order; completion before the last byte',
  );
  t.equal(seen[0]?.key, id, 'the plugin sees the key record set by auth');
  t.equal(seen[0]?.model, 'gamma-5.4', 'and the canonical model set by model-normalise');
  t.equal(seen[1]?.model, 'gamma-5.4', 'the translated upstream body');
  t.same(seen[3], { phase: 'complete', outcome: 'ok', status: 200, usage: { promptTokens: 2, completionTokens: 2 } });

  seen.length = 0;
  const refused = await client.chat.completions.create({ model: 'gamma-5.2', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
  t.equal((refused as { status: number }).status, 429, 'a plugin refuses by throwing a GatewayError');
  t.same(
    seen.map((s) => s.phase),
    ['request', 'complete'],
  );
  t.equal(seen[1]?.outcome, 'rejected');

  seen.length = 0;
  const unauthenticated = await fetch(`${h.baseURL}/chat/completions`, { method: 'POST', body: '{}' });
  t.equal(unauthenticated.status, 401);
  t.same(
    seen.map((s) => s.phase),
    ['complete'],
    'a call refused earlier in the chain still completes once',
  );
  t.equal(seen[0]?.status, 401);

  // A caller that goes away mid-stream: completion still runs, once, with what was produced.
  seen.length = 0;
  h.gamma.chunkDelayMs = 20;
  const controller = new AbortController();
  const stream = await client.chat.completions.create(
    { model: 'gamma-5.4', stream: true, messages: [{ role: 'user', content: 'x [[sim:tokens=50]]' }] },
    { signal: controller.signal },
  );
  let received = 0;
  await (async () => {
    for await (const _chunk of stream) {
      received += 1;
      if (received === 5) controller.abort();
    }
  })().catch(() => undefined);
  const deadline = Date.now() + 5000;
  while (!seen.some((s) => s.phase === 'complete') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const completes = seen.filter((s) => s.phase === 'complete');
  t.equal(completes.length, 1, 'exactly one completion for a disconnected caller');
  t.equal(completes[0]?.outcome, 'client_disconnected');
  t.ok((completes[0]?.usage?.completionTokens ?? 0) >= 4, 'the deltas relayed before the disconnect are counted');
  t.ok((completes[0]?.usage?.completionTokens ?? 99) < 50, 'but not the ones never produced');
  await new Promise((r) => setTimeout(r, 200));
  t.equal(seen.filter((s) => s.phase === 'complete').length, 1, 'and no second completion later');
});

t.test('plugins mount public and admin routes', async (t) => {
  const h = await startHarness(t, {
    plugins: [...DEFAULT_CHAIN, entry('recorder')],
    registered: { recorder: recorder([]) },
  });
  const pub = await fetch(`${h.origin}/recorder`);
  t.same(await pub.json(), { seen: 0 });
  const adminRes = await h.admin('GET', '/recorder');
  t.same(await adminRes.json(), { admin: true });
  const noToken = await fetch(`${h.origin}/admin/v1/recorder`);
  t.equal(noToken.status, 401, 'plugin admin routes are behind the admin token');
});

t.test('the example plugin: write the module, list it in YAML', async (t) => {
  const h = await startHarness(t, {
    plugins: [...DEFAULT_CHAIN, entry('upstream-headers', { headers: { 'x-team': 'platform' }, families: ['gamma'] })],
  });
  const { key } = await h.createKey();
  await h.client(key).chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] });
  t.equal(h.gamma.requests.at(-1)?.headers['x-team'], 'platform');
});

t.test('chain configuration errors name the YAML path', async (t) => {
  const attempt = (plugins: PluginEntry[]) =>
    startHarness(t, { plugins }).then(
      () => undefined,
      (e: unknown) => e as Error,
    );
  t.match(await attempt([...DEFAULT_CHAIN, entry('no-such-plugin')]), { message: /\/plugins\/5: no plugin named "no-such-plugin"/ });
  t.match(await attempt([entry('model-normalise'), entry('scope')]), {
    message: /\/plugins\/1: plugin "scope" needs the caller's key, which no enabled plugin provides/,
  });
  t.match(await attempt([...DEFAULT_CHAIN, entry('auth')]), { message: /listed twice/ });
  t.match(await attempt([...DEFAULT_CHAIN, entry('upstream-headers', { headers: { a: 1 } })]), {
    message: /gateway\.yaml: \/plugins\/5\/config\/headers\/a must be a string/,
  });
  t.match(await attempt([...DEFAULT_CHAIN.slice(0, 4), entry('vendor-gamma', { surprise: true })]), { message: /takes no config/ });
});

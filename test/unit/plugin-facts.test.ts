import t from 'tap';
import type { KeyRecord } from '../../src/store/store.js';
import { definePlugin } from '../../src/chain/plugin.js';
import { factsProblem, type FactDeclarer } from '../../src/chain/plugin-facts.js';
import { resolvePlugins } from '../../src/chain/resolve-plugins.js';
import type { PluginEntry } from '../../src/config/schema.js';
import { loadConfig } from '../../src/config/load.js';
import { chainOf, detachedCall } from '../helpers/pipeline-parts.js';

/** What each plugin provides and needs, and what the boot makes of the order (src/chain/plugin-facts.ts). */

const declared = (name: string, facts: { provides?: Array<'key' | 'model'>; needs?: Array<'key' | 'model'> }, index: number): FactDeclarer => ({
  name,
  plugin: facts,
  where: `gateway.yaml: /plugins/${index}`,
});
const chain = (...plugins: Array<[string, { provides?: Array<'key' | 'model'>; needs?: Array<'key' | 'model'> }]>): FactDeclarer[] =>
  plugins.map(([name, facts], i) => declared(name, facts, i));

t.test('a chain whose every need is provided earlier can work', async (t) => {
  t.equal(factsProblem(chain(['auth', { provides: ['key'] }], ['model-normalise', { provides: ['model'] }], ['scope', { needs: ['key', 'model'] }])), null);
});

t.test('a plugin that needs the key, listed before the plugin providing it, is one line naming both', async (t) => {
  const problem = factsProblem(chain(['scope', { needs: ['key'] }], ['auth', { provides: ['key'] }]));
  t.equal(
    problem,
    'gateway.yaml: /plugins/0: plugin "scope" needs the caller\'s key, which "auth" provides, but "auth" is listed after it (gateway.yaml: /plugins/1); list "scope" below "auth"',
  );
  t.notMatch(problem, /\n/, 'one line');
});

t.test('a need nobody provides, two providers of one fact, and a plugin needing its own fact are refused', async (t) => {
  t.match(factsProblem(chain(['ledger', { needs: ['model'] }])), /plugin "ledger" needs the canonical model, which no enabled plugin provides/);
  t.match(
    factsProblem(chain(['auth', { provides: ['key'] }], ['sso', { provides: ['key'] }])),
    /\/plugins\/1: plugin "sso" provides the caller's key, and so does "auth" \(gateway.yaml: \/plugins\/0\)/,
  );
  t.match(factsProblem(chain(['odd', { provides: ['key'], needs: ['key'] }])), /plugin "odd" both needs and provides the caller's key/);
});

t.test('the boot refuses the real plugins in an order that cannot work, naming both', async (t) => {
  const entries: PluginEntry[] = ['ingress-chat', 'scope', 'auth', 'model-normalise', 'vendor-gamma'].map((name) => ({ name, enabled: true, config: {} }));
  await t.rejects(resolvePlugins(entries, 'gateway.yaml'), {
    name: 'PluginConfigError',
    message:
      /^gateway\.yaml: \/plugins\/1: plugin "scope" needs the caller's key, which "auth" provides, but "auth" is listed after it \(gateway\.yaml: \/plugins\/2\)/,
  });
  const shipped = loadConfig('config/gateway.yaml', {});
  const resolved = await resolvePlugins(shipped.config.plugins, 'config/gateway.yaml');
  t.ok(resolved.length > 10, 'the shipped chain passes the check');
  t.same(
    resolved.filter((p) => p.plugin.provides?.length).map((p) => [p.name, p.plugin.provides]),
    [
      ['auth', ['key']],
      ['model-normalise', ['model']],
    ],
    'the shipped providers',
  );
});

t.test('a call that names no model skips the request hooks of plugins that need one', async (t) => {
  const seen: string[] = [];
  const hooks = chainOf(
    { name: 'counter', onRequest: () => void seen.push('counter') },
    { name: 'scope', needs: ['key', 'model'], onRequest: () => void seen.push('scope') },
  );
  await hooks.onRequest(detachedCall());
  t.same(seen, ['counter', 'scope'], 'a model call passes both');
  seen.length = 0;
  await hooks.onRequest(detachedCall('gamma-5.4', 'usage'));
  t.same(seen, ['counter'], 'GET /v1/usage passes only the one that needs no model');
});

t.test("a plugin that declares it provides the key and leaves a call without one is the gateway's 500, not a later crash", async (t) => {
  const careless = chainOf({ name: 'sso', provides: ['key'], onHeaders: () => undefined });
  await t.rejects(careless.onHeaders(detachedCall()), { status: 500, message: /The plugin "sso" provides the caller's key but left the call without one/ });
  const careful = chainOf({ name: 'sso', provides: ['key'], onHeaders: (call) => call.authenticate({ id: 'k1' } as KeyRecord) });
  const call = detachedCall();
  await careful.onHeaders(call);
  t.equal(call.key?.id, 'k1');
});

t.test("a hook's call is typed by what its plugin needs", async (t) => {
  // Checked by the type-check `npm test` runs: each @ts-expect-error fails it if the line compiles.
  const read: unknown[] = [];
  const plugins = [
    definePlugin({
      name: 'needs-nothing',
      setup: () => ({
        onRequest(call) {
          // @ts-expect-error: without `needs: ['key']` the key may be null
          read.push(call.key.id);
          // @ts-expect-error: without `needs: ['model']` the model may be null
          read.push(call.model.id);
        },
      }),
    }),
    definePlugin({
      name: 'needs-both',
      needs: ['key', 'model'],
      setup: () => ({
        onRequest(call) {
          read.push(call.key.id);
          read.push(call.model.id);
          read.push(call.family.length);
        },
        onHeaders(call) {
          read.push(call.key.id);
          // @ts-expect-error: the model is resolved after the body is read, never in onHeaders
          read.push(call.model.id);
        },
        onComplete(call) {
          // @ts-expect-error: a settled call may have been refused before it had a key
          read.push(call.key.id);
          // @ts-expect-error: a settled call may have ended before any upstream attempt
          read.push(call.deployment.length);
        },
        onUpstreamRequest(call) {
          read.push(call.deployment.length, call.model.id);
        },
        onUpstreamResponse(call) {
          read.push(call.deployment.length);
        },
      }),
    }),
  ];
  t.same(
    plugins.map((p) => p.needs ?? []),
    [[], ['key', 'model']],
  );
});

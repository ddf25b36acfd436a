import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { answeringOn } from '../../src/chain/phases.js';
import { definePlugin, type Plugin } from '../../src/chain/plugin.js';
import { PluginConfigError, resolvePlugins } from '../../src/chain/resolve-plugins.js';
import type { PluginEntry } from '../../src/config/schema.js';
import { GatewayError } from '../../src/http/errors.js';
import { chainOf, detachedCall, settled } from '../helpers/pipeline-parts.js';

t.test('request hooks run in config order, response hooks in reverse', async (t) => {
  const seen: string[] = [];
  const hooks = (name: string) => ({
    name,
    onHeaders: () => void seen.push(`${name}.headers`),
    onRequest: async () => void seen.push(`${name}.request`),
    onUpstreamRequest: () => void seen.push(`${name}.upstreamRequest`),
    onUpstreamResponse: () => void seen.push(`${name}.upstreamResponse`),
    onResponseChunk: () => void seen.push(`${name}.chunk`),
    onComplete: () => void seen.push(`${name}.complete`),
    close: () => void seen.push(`${name}.close`),
  });
  const chain = chainOf(hooks('a'), hooks('b'));
  const call = detachedCall();
  await chain.onHeaders(call);
  await chain.onRequest(call);
  const answering = answeringOn(call, 'default');
  chain.onUpstreamRequest(answering, { path: '', headers: {}, body: Buffer.alloc(0) });
  chain.onUpstreamResponse(answering, { status: 200, headers: {}, attempt: 1 });
  chain.onResponseChunk(call, 'x');
  await chain.onComplete(settled(call));
  await chain.close();
  t.same(seen, [
    'a.headers',
    'b.headers',
    'a.request',
    'b.request',
    'a.upstreamRequest',
    'b.upstreamRequest',
    'b.upstreamResponse',
    'a.upstreamResponse',
    'b.chunk',
    'a.chunk',
    'b.complete',
    'a.complete',
    'b.close',
    'a.close',
  ]);
  t.equal(chainOf({}).wantsChunks, false, 'no chunk hooks: the relay skips them');
});

t.test('a refusal stops the request hooks; a failing completion hook does not stop the others', async (t) => {
  const seen: string[] = [];
  const chain = chainOf(
    {
      onRequest: () => {
        throw new GatewayError(403, 'no');
      },
      onComplete: () => {
        throw new Error('first failure');
      },
    },
    {
      onRequest: () => void seen.push('second request'),
      onComplete: () => {
        seen.push('second complete');
        throw new Error('second failure');
      },
    },
  );
  await t.rejects(chain.onRequest(detachedCall()), { message: 'no' });
  t.same(seen, []);
  await t.rejects(chain.onComplete(settled(detachedCall())), { message: 'second failure' }, 'the first failure (in run order) is rethrown');
  t.same(seen, ['second complete']);
});

t.test('completion writes start before the first onComplete hook, are awaited with them, and their failure is rethrown', async (t) => {
  const seen: string[] = [];
  let finishWrite = (): void => undefined;
  const chain = chainOf(
    {
      onComplete: () => void seen.push('a.complete'),
      onCompleteWrite: () =>
        new Promise<void>((resolve) => {
          seen.push('a.write started');
          finishWrite = () => {
            seen.push('a.write done');
            resolve();
          };
        }),
    },
    {
      onComplete: async () => {
        seen.push('b.complete');
        await Promise.resolve();
        seen.push('b.complete done');
      },
    },
  );
  const completing = chain.onComplete(settled(detachedCall()));
  t.same(seen, ['a.write started', 'b.complete'], 'the write is under way before the first onComplete hook runs, in the same turn');
  await new Promise((resolve) => setImmediate(resolve));
  t.same(seen, ['a.write started', 'b.complete', 'b.complete done', 'a.complete'], 'the onComplete hooks run one after another meanwhile');
  let done = false;
  void completing.then(() => (done = true));
  await new Promise((resolve) => setImmediate(resolve));
  t.equal(done, false, 'completion waits for the write');
  finishWrite();
  await completing;
  t.same(seen.at(-1), 'a.write done');

  const failing = chainOf(
    {
      onCompleteWrite: async () => {
        throw new Error('write failed');
      },
    },
    { onComplete: () => void seen.push('still runs') },
  );
  await t.rejects(failing.onComplete(settled(detachedCall())), { message: 'write failed' }, "a failed write is the completion's failure");
  t.equal(seen.at(-1), 'still runs', 'and the onComplete hooks still run');
  const throwing = chainOf(
    {
      onCompleteWrite: () => {
        throw new Error('thrown at once');
      },
    },
    { onComplete: () => void seen.push('runs too') },
  );
  await t.rejects(throwing.onComplete(settled(detachedCall())), { message: 'thrown at once' }, 'so is one thrown before any promise');
  t.equal(seen.at(-1), 'runs too');
});

t.test('what two plugins cannot both provide is a one-line boot error naming the YAML entry', async (t) => {
  const policy = { next: () => null };
  t.throws(
    () => chainOf({ retryPolicy: policy }, { retryPolicy: policy }),
    new PluginConfigError('config /plugins/1: plugin "p1" provides a retry policy, and so does "p0"'),
  );
  const translator = {
    family: 'gamma',
    create: () => {
      throw new Error('unused');
    },
  };
  t.throws(() => chainOf({ translator }, { translator }), { message: /config \/plugins\/1: .* translates the family gamma/ });
  const responders = { usage: () => ({}) };
  t.throws(() => chainOf({ responders }, { responders }), { message: /config \/plugins\/1: .* answers usage/ });
});

const entry = (name: string, extra: Partial<PluginEntry> = {}): PluginEntry => ({ name, enabled: true, config: {}, ...extra });
const plain = (name: string, order: Pick<Plugin, 'after' | 'before'> = {}): Plugin => definePlugin({ name, ...order, setup: () => ({}) });

t.test('after and before are checked at boot, naming the YAML path', async (t) => {
  const registered = { a: plain('a'), b: plain('b', { after: ['a'] }), c: plain('c', { before: ['a'] }) };
  t.same(
    (await resolvePlugins([entry('a'), entry('b')], '.', registered)).map((p) => p.name),
    ['a', 'b'],
  );
  await t.rejects(resolvePlugins([entry('b'), entry('a')], 'gw.yaml', registered), {
    message: 'gw.yaml: /plugins/0: plugin "b" must come after "a" in the plugin list',
  });
  await t.rejects(
    resolvePlugins([entry('b')], '.', registered),
    { message: /must come after "a"/, name: 'PluginConfigError' },
    'a missing plugin it needs first',
  );
  t.same(
    (await resolvePlugins([entry('c'), entry('a')], '.', registered)).map((p) => p.name),
    ['c', 'a'],
  );
  await t.rejects(resolvePlugins([entry('a'), entry('c')], 'gw.yaml', registered), {
    message: 'gw.yaml: /plugins/1: plugin "c" needs "a" listed after it in the plugin list',
  });
  await t.rejects(resolvePlugins([entry('c')], '.', registered), { message: /needs "a" listed after it/ });
  t.same(
    (await resolvePlugins([entry('a', { enabled: false }), entry('c', { enabled: false })], '.', registered)).length,
    0,
    'disabled plugins are not checked',
  );
  await t.rejects(resolvePlugins([entry('ceiling')], '.'), { message: /plugin "ceiling" needs the caller's key, which no enabled plugin provides/ });
  await t.rejects(resolvePlugins([entry('auth'), entry('model-normalise'), entry('ceiling')], '.'), {
    message: /plugin "ceiling" needs "ledger" listed after it/,
  });
});

t.test('a plugin kept outside plugins/ is loaded from the path its entry names', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-plugin-path-'));
  writeFileSync(join(dir, 'package.json'), '{"type":"module"}\n');
  mkdirSync(join(dir, 'greeter'));
  writeFileSync(join(dir, 'greeter', 'index.js'), "export default { name: 'greeter', setup: () => ({}) };\n");
  const configFile = join(dir, 'gateway.yaml');
  const [greeter] = await resolvePlugins([entry('greeter', { path: 'greeter' })], configFile);
  t.equal(greeter?.plugin.name, 'greeter', 'relative to the config file');
  await t.rejects(resolvePlugins([entry('greeter', { path: 'nowhere' })], configFile), { message: /gateway\.yaml: \/plugins\/0: no plugin named "greeter"/ });
  writeFileSync(join(dir, 'greeter', 'index.js'), "export default { name: 'someone-else', setup: () => ({}) };\n");
  mkdirSync(join(dir, 'other'));
  writeFileSync(join(dir, 'other', 'index.js'), "export default { name: 'someone-else', setup: () => ({}) };\n");
  await t.rejects(resolvePlugins([entry('greeter', { path: 'other' })], configFile), { message: /calls itself "someone-else"/ });
  await t.rejects(
    resolvePlugins([entry('upstream-headers', { config: { headers: { a: 1 } } })], configFile),
    {
      message: /gateway\.yaml: \/plugins\/0\/config\/headers\/a must be a string$/,
    },
    "a plugin's config schema names the file and the path inside the block",
  );
});

import type { ModelEntry } from '../../src/catalogue/catalogue.js';
import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { Deployments } from '../../src/upstreams/deployments.js';
import { DeploymentSelector } from '../../src/upstreams/selection.js';
import { LocalUpstreamHealth } from '../helpers/local-upstream-health.js';
import { Call } from '../../src/chain/call.js';
import { ENDPOINTS } from '../helpers/endpoints.js';
import type { StreamTranslator } from '../../src/chain/translator.js';
import { bodyReader } from '../../src/http/body-reader.js';
import { GatewayError } from '../../src/http/errors.js';
import { admit } from '../../src/pipeline/admission.js';
import type { Store } from '../../src/store/store.js';
import { complete, endInFailure } from '../../src/pipeline/completion.js';
import { exchange } from '../../src/pipeline/exchange.js';
import { relayBody, relayStreamed, sendBody } from '../../src/pipeline/relay.js';
import {
  catalogue,
  chainOf,
  detachedCall,
  exchangeDeps,
  LIMITS,
  scriptedTranslator,
  scriptedUpstream,
  silentLog,
  singleDeployment,
} from '../helpers/pipeline-parts.js';

const ignoreHeld = (): void => undefined;

/** A store no step reaches: these calls queue no admission step. */
const NO_STEPS_STORE = {} as Store;

t.test('admission: the declared-length 413, then the header checks, and only then the body', async (t) => {
  const order: string[] = [];
  const reads: string[] = [];
  let sent = JSON.stringify({ model: 'gamma-5.4', stream: true, messages: [{ role: 'user', content: 'x' }] });
  const reader = {
    checkDeclaredLength: () => order.push('length'),
    read: async () => (reads.push('read'), { bytes: Buffer.from(sent), release: () => undefined }),
  };
  const chain = chainOf({ onHeaders: () => void order.push('headers') }, { onRequest: () => void order.push('request') });
  const call = detachedCall();
  await admit(call, chain, reader, NO_STEPS_STORE, ignoreHeld);
  t.same(order, ['length', 'headers', 'request']);
  t.same(reads, ['read']);
  t.equal(call.stream, true, 'the stream flag is read from the body its format checked');

  order.length = 0;
  sent = JSON.stringify({ model: 'gamma-5.4', messages: 'not a list' });
  await t.rejects(admit(detachedCall(), chain, reader, NO_STEPS_STORE, ignoreHeld), { status: 400, param: 'messages', message: /messages/ });
  t.same(order, ['length', 'headers'], 'the body is checked by its format before any request hook sees it');
  sent = JSON.stringify({ messages: [] });
  await t.rejects(
    admit(detachedCall(), chain, reader, NO_STEPS_STORE, ignoreHeld),
    { status: 400, param: 'model', message: 'model is required.' },
    'the model first',
  );

  const unresolved = chainOf({});
  const bare = new Call(ENDPOINTS['chat.completions'], { headers: {} } as IncomingMessage, {} as ServerResponse, 0);
  sent = JSON.stringify({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] });
  await t.rejects(
    admit(bare, unresolved, reader, NO_STEPS_STORE, ignoreHeld),
    { status: 500, message: /No plugin resolved the model of \/v1\/chat\/completions/ },
    "a chain without the model's provider fails loudly, not in a translator",
  );

  reads.length = 0;
  const refusing = chainOf({
    onHeaders: () => {
      throw new GatewayError(401, 'no key');
    },
  });
  await t.rejects(admit(detachedCall(), refusing, reader, NO_STEPS_STORE, ignoreHeld), { message: 'no key' });
  t.same(reads, [], 'a caller refused from its headers never has its body read');

  const tooBig = bodyReader({ maxBytes: 10, maxBytesHeld: 10 });
  const declared = detachedCall();
  declared.req.headers['content-length'] = '11';
  let headerChecks = 0;
  await t.rejects(admit(declared, chainOf({ onHeaders: () => void (headerChecks += 1) }), tooBig, NO_STEPS_STORE, ignoreHeld), {
    message: /exceeds the 10 bytes limit/,
  });
  t.equal(headerChecks, 0, "a declared length over the limit is the edge's 413, before the key is looked at");

  const usage = new Call(ENDPOINTS.usage, { headers: {} } as IncomingMessage, {} as ServerResponse, 0);
  reads.length = 0;
  await admit(usage, chainOf({}), reader, NO_STEPS_STORE, ignoreHeld);
  t.same(reads, [], 'a GET has no body to read');
});

t.test('exchange: retries by the policy, a fallback prepares anew, giving up throws the last error', async (t) => {
  const upstream = await scriptedUpstream(t, [
    { status: 503, body: '{}' },
    { status: 200, body: '{"ok":true}' },
  ]);
  const translator = scriptedTranslator();
  const decisions: string[] = [];
  const chain = chainOf({
    translator: { family: 'gamma', create: () => translator },
    retryPolicy: { next: (_call, failure) => (decisions.push(failure.code), { kind: 'retry', delayMs: 1 }) },
  });
  const call = detachedCall();
  const answer = await exchange(call, exchangeDeps(chain, upstream.sender));
  t.equal(answer.kind, 'body');
  t.same(decisions, ['503'], 'the policy saw the failed attempt');
  t.same(
    call.upstreamAttempts.map((a) => [a.code, a.then]),
    [
      ['503', 'retry'],
      [null, null],
    ],
  );
  t.equal(call.attempts, 2);

  const down = await scriptedUpstream(t, [{ status: 503, body: '{}' }]);
  const giveUp = chainOf({ translator: { family: 'gamma', create: () => scriptedTranslator() }, retryPolicy: { next: () => null } });
  await t.rejects(exchange(detachedCall(), exchangeDeps(giveUp, down.sender)), { message: 'upstream said 503' });

  const created: string[] = [];
  const sibling = catalogue.resolve('gamma-5.2');
  const withFallback = chainOf({
    translator: { family: 'gamma', create: (c) => (created.push(c.model?.id ?? ''), scriptedTranslator()) },
    retryPolicy: { next: (c) => (c.model?.id === 'gamma-5.4' && sibling ? { kind: 'fallback', delayMs: 0, model: sibling } : null) },
  });
  const fallback = detachedCall('gamma-5.4');
  const flaky = await scriptedUpstream(t, [
    { status: 503, body: '{}' },
    { status: 200, body: '{"ok":true}' },
  ]);
  await exchange(fallback, exchangeDeps(withFallback, flaky.sender));
  t.same(created, ['gamma-5.4', 'gamma-5.2'], 'a translator per model asked');
  t.equal(fallback.model?.id, 'gamma-5.2', "the sibling is now the call's model");

  const noVendor = chainOf({});
  // As in a gateway, a family no vendor plugin serves has no deployments either.
  const none = new DeploymentSelector(new Deployments(new Map()), new LocalUpstreamHealth({ fails: 3, windowMs: 30_000, cooldownMs: 30_000 }), silentLog);
  await t.rejects(exchange(detachedCall('alpha-sonnet-4.6'), { ...exchangeDeps(noVendor, upstream.sender), deployments: none }), {
    message: /No upstream is configured for the alpha family .*enable its vendor plugin/,
  });
});

t.test('exchange: a translator that answers itself makes no upstream attempt; the answer is sent after completion', async (t) => {
  const upstream = await scriptedUpstream(t, [{ status: 200, body: '{"ok":true}' }]);
  const local = { ...scriptedTranslator(), request: () => ({ local: { body: '{"input_tokens":7}', usage: { promptTokens: 0, completionTokens: 0 } } }) };
  const chain = chainOf({ translator: { family: 'gamma', create: () => local } });
  const call = detachedCall();
  const answer = await exchange(call, exchangeDeps(chain, upstream.sender));
  t.same(answer, { kind: 'local', body: { body: '{"input_tokens":7}', usage: { promptTokens: 0, completionTokens: 0 } } });
  t.equal(upstream.asked(), 0, 'the upstream was not asked');
  t.same([call.attempts, call.upstreamAttempts.length], [0, 0], 'no attempt: the ledger writes no row for it');

  const seen: string[] = [];
  const recording = chainOf({ onComplete: (c) => void seen.push(`complete ${c.outcome} ${c.attempts}`) });
  const sent = await served(t, (c) =>
    sendBody(c, { body: '{"input_tokens":7}', usage: { promptTokens: 0, completionTokens: 0 } }, { chain: recording, limits: LIMITS }),
  );
  t.same([sent.status, sent.body], [200, '{"input_tokens":7}']);
  t.same(seen, ['complete ok 0']);
});

/** Runs `step` inside a real HTTP exchange and returns what the caller received. */
async function served(t: { teardown(fn: () => unknown): void }, step: (call: Call) => Promise<void>): Promise<{ status: number; body: string }> {
  const server = createServer((req, res) => {
    const call = new Call(ENDPOINTS['chat.completions'], req, res, 0, Buffer.from('{}'));
    call.resolveModel(catalogue.resolve('gamma-5.4') as ModelEntry);
    call.stream = true;
    void step(call);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const port = (server.address() as AddressInfo).port;
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, method: 'POST' }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    })
      .on('error', reject)
      .end();
  });
}

t.test('relay: completion before the last byte, for a body and for a stream', async (t) => {
  const seen: string[] = [];
  const chain = chainOf({
    onComplete: (call) => void seen.push(`complete ${call.outcome} ${call.status}`),
    onResponseChunk: (_c, chunk) => void seen.push(`chunk ${String(chunk).trim()}`),
  });
  const deps = { chain, limits: LIMITS };
  const body = await served(t, (call) => relayBody(call, scriptedTranslator(), Buffer.from('{"ok":true}'), deps));
  t.same([body.status, body.body], [200, '{"ok":true}']);
  t.same(seen, ['complete ok 200', 'chunk {"ok":true}'], 'completed, then the body went out');

  seen.length = 0;
  const stream: StreamTranslator = {
    usage: null,
    relayedDeltas: 2,
    event: (e) => `data: ${e.data}\n\n`,
    end: () => '',
    done: () => 'data: [DONE]\n\n',
    fail: () => '',
  };
  const upstream = await scriptedUpstream(t, [{ status: 200, body: 'data: {"a":1}\n\ndata: {"a":2}\n\n', headers: { 'content-type': 'text/event-stream' } }]);
  const relayed = await served(t, async (call) => {
    const res = await upstream.sender.send(call, singleDeployment('gamma'), { path: '', headers: {}, body: Buffer.alloc(0) });
    await relayStreamed(call, scriptedTranslator({ stream: () => stream }), res, deps);
  });
  t.equal(relayed.body, 'data: {"a":1}\n\ndata: {"a":2}\n\ndata: [DONE]\n\n');
  t.equal(seen.indexOf('complete ok 200') < seen.indexOf('chunk data: [DONE]'), true, 'the ledger runs before [DONE]');
});

t.test('completion: exactly once, and a failure ends in our envelope or a last SSE frame', async (t) => {
  let runs = 0;
  const chain = chainOf({ onComplete: () => void (runs += 1) });
  const call = detachedCall();
  await t.rejects(complete(call, chain), { status: 500, message: /before its outcome was decided/ }, 'a call is settled before it completes');
  t.equal(runs, 0);
  call.outcome = 'ok';
  await complete(call, chain);
  await complete(call, chain);
  t.equal(runs, 1, 'completion hooks run once however often completion is asked');

  const refused = await served(t, (c) => endInFailure(c, new GatewayError(403, 'not yours'), chain, silentLog));
  t.equal(refused.status, 403);
  t.same(JSON.parse(refused.body), { error: { message: 'not yours', type: 'model_not_allowed', code: 'model_not_allowed', param: null } });

  const broken = await served(t, async (c) => {
    c.res.writeHead(200, { 'content-type': 'text/event-stream' });
    c.status = 200;
    await endInFailure(c, new GatewayError(502, 'cut'), chain, silentLog);
  });
  t.equal(broken.status, 200);
  t.match(broken.body, /^data: \{"error":\{"message":"cut"/, 'after the headers: one error frame');
});

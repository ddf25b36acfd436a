import { createServer, request, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { Call } from '../../src/chain/call.js';
import { ENDPOINTS } from '../helpers/endpoints.js';
import { ProxyCore, UpstreamFailure, type ProxyOptions } from '../../src/proxy/proxy-core.js';
import type { Deployment } from '../../src/upstreams/deployments.js';
import { singleDeployment } from '../helpers/pipeline-parts.js';

/** The gamma deployment each proxy core of these tests sends to. */
const deploymentOf = new WeakMap<ProxyCore, Deployment>();

function proxyTo(base: string, options: ProxyOptions): ProxyCore {
  const deployment = singleDeployment('gamma', base);
  const core = new ProxyCore([deployment], options);
  deploymentOf.set(core, deployment);
  return core;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A loopback server; `handle` decides each answer. */
async function listen(t: Teardown, handle: (req: IncomingMessage, res: import('node:http').ServerResponse) => void): Promise<string> {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    server.closeAllConnections();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/**
 * A caller's request arriving at a front server, handed to the proxy core as the pipeline does;
 * resolves with what the attempt gave (the upstream status and body, or the failure kind).
 */
async function attempt(
  t: Teardown,
  core: ProxyCore,
  callerHeaders: Record<string, string>,
  options: { leaveAfterMs?: number } = {},
): Promise<{ status?: number; body?: string; failure?: string }> {
  let outcome!: Promise<{ status?: number; body?: string; failure?: string }>;
  const front = await listen(t, (req, res) => {
    const call = new Call(ENDPOINTS['chat.completions'], req, res, 0);
    res.once('close', () => {
      if (!res.writableFinished) call.callerLeft();
    });
    outcome = core
      .send(call, deploymentOf.get(core) as Deployment, {
        path: 'v1/chat/completions',
        headers: { authorization: 'Bearer vendor-key' },
        body: Buffer.from('{"hi":1}'),
      })
      .then(
        (upstream) =>
          new Promise((resolve) => {
            let body = '';
            upstream.on('data', (c: Buffer) => (body += c.toString()));
            upstream.on('end', () => {
              res.end();
              resolve({ status: upstream.statusCode ?? 0, body });
            });
          }),
        (error: unknown) => {
          res.end();
          return { failure: error instanceof UpstreamFailure ? error.kind : String(error) };
        },
      );
  });
  await new Promise<void>((resolve) => {
    const req = request(`${front}/v1/chat/completions`, { method: 'POST', headers: callerHeaders }, (res) => {
      res.resume();
      res.on('end', resolve);
    });
    req.on('error', () => resolve());
    req.end('{}');
    if (options.leaveAfterMs !== undefined) setTimeout(() => req.destroy(), options.leaveAfterMs);
  });
  return outcome;
}

t.test('one attempt: the body re-sent, only allowlisted caller headers forwarded, never credentials or hop-by-hop ones', async (t) => {
  let seen: { headers: IncomingHttpHeaders; body: string } | undefined;
  const upstream = await listen(t, (req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen = { headers: req.headers, body };
      res.end('{"ok":true}');
    });
  });
  const core = proxyTo(upstream, { headersMs: 2000, connectMs: 1000, forwardedHeaders: ['x-custom', 'x-stainless-*'] });
  t.teardown(() => core.close());
  const out = await attempt(t, core, {
    authorization: 'Bearer sl-caller',
    'x-api-key': 'caller-vendor-key',
    'x-custom': 'kept',
    'x-stainless-lang': 'js',
    'x-goog-user-project': 'callers-project',
    'openai-organization': 'org-caller',
    'keep-alive': '5',
  });
  t.same(out, { status: 200, body: '{"ok":true}' });
  t.equal(seen?.body, '{"hi":1}', "the translated body, not the caller's");
  t.equal(seen?.headers.authorization, 'Bearer vendor-key', "the vendor credential replaces the caller's");
  t.equal(seen?.headers['x-api-key'], undefined);
  t.equal(seen?.headers['keep-alive'], undefined);
  t.equal(seen?.headers['x-custom'], 'kept', 'an allowlisted name');
  t.equal(seen?.headers['x-stainless-lang'], 'js', 'an allowlisted prefix');
  t.equal(seen?.headers['x-goog-user-project'], undefined, "billing and project routing stay the operator's");
  t.equal(seen?.headers['openai-organization'], undefined);
  t.equal(seen?.headers['content-length'], '8');
});

t.test('failures: refused connection, no headers in time, and a caller who leaves', async (t) => {
  const refused = proxyTo('http://127.0.0.1:9', { headersMs: 2000, connectMs: 1000, forwardedHeaders: ['x-custom', 'x-stainless-*'] });
  t.teardown(() => refused.close());
  t.same(await attempt(t, refused, {}), { failure: 'connect' });

  let upstreamClosed: boolean;
  const silent = await listen(t, (req) => req.socket.once('close', () => (upstreamClosed = true)));
  const slow = proxyTo(silent, { headersMs: 150, connectMs: 1000, forwardedHeaders: [] });
  t.teardown(() => slow.close());
  t.same(await attempt(t, slow, {}), { failure: 'headers_timeout' });

  upstreamClosed = false;
  const patient = proxyTo(silent, { headersMs: 5000, connectMs: 1000, forwardedHeaders: [] });
  t.teardown(() => patient.close());
  const started = Date.now();
  t.same(await attempt(t, patient, {}, { leaveAfterMs: 100 }), { failure: 'caller_gone' }, "the call's signal ends the attempt");
  t.ok(Date.now() - started < 3000, 'at once, not at the header timeout');
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.ok(upstreamClosed, 'and the upstream request is aborted');
});

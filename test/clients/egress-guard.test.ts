import { request } from 'node:http';
import { connect } from 'node:net';
import t from 'tap';
import { watchOutsideConnections } from '../helpers/client-gateway.js';
import { LOOPBACK_HOSTS, startEgressGuard } from './helpers/egress-guard.js';

/**
 * What keeps the clients on loopback: the egress guard the CLI runs are given as their proxy
 * (helpers/egress-guard.ts) refuses what a client would send through it, HTTPS (CONNECT) and plain
 * HTTP, records the host each was for, and exempts loopback; the watch of the test process, where
 * the SDKs run (test/helpers/client-gateway.ts), records a connection anywhere else.
 */

/** Sends one request through the proxy at `proxy`: a CONNECT to `target`, or a plain GET of the absolute `target`. */
function throughProxy(proxy: string, method: 'CONNECT' | 'GET', target: string): Promise<number> {
  const { hostname, port } = new URL(proxy);
  return new Promise((done, fail) => {
    const req = request({ host: hostname, port, method, path: target, headers: { host: method === 'CONNECT' ? target : new URL(target).host } });
    req.once('connect', (res, socket) => {
      socket.destroy();
      done(res.statusCode ?? 0);
    });
    req.once('response', (res) => {
      res.resume();
      done(res.statusCode ?? 0);
    });
    req.once('error', fail);
    req.end();
  });
}

t.test('the egress guard refuses and records every outside request', async (t) => {
  const guard = await startEgressGuard();
  t.teardown(() => guard.close());
  const proxy = guard.env['HTTPS_PROXY'] ?? '';
  t.match(proxy, /^http:\/\/127\.0\.0\.1:\d+$/, 'the proxy is on loopback');
  for (const name of ['HTTPS_PROXY', 'HTTP_PROXY', 'ALL_PROXY']) {
    t.equal(guard.env[name], proxy, `${name} is the guard`);
    t.equal(guard.env[name.toLowerCase()], proxy, `${name.toLowerCase()} is the guard`);
  }
  t.equal(guard.env['NO_PROXY'], LOOPBACK_HOSTS, 'loopback goes direct');
  t.equal(guard.env['no_proxy'], LOOPBACK_HOSTS, 'loopback goes direct (lower case)');

  t.equal(await throughProxy(proxy, 'CONNECT', 'api.github.com:443'), 403, 'HTTPS (CONNECT) refused');
  t.equal(await throughProxy(proxy, 'GET', 'http://example.com/update'), 403, 'plain HTTP refused');
  t.same(guard.refused(), ['api.github.com:443', 'example.com:80'], 'the hosts asked for, in order');
});

t.test('the watch of the test process records a connection outside loopback, and only that', async (t) => {
  const outside = watchOutsideConnections(t);
  const guard = await startEgressGuard();
  t.teardown(() => guard.close());
  const attempt = (host: string, port: number): Promise<void> =>
    new Promise((done) => {
      const socket = connect({ host, port });
      socket.once('connect', () => socket.end(done));
      socket.once('error', () => done());
    });
  await attempt('127.0.0.1', Number(new URL(guard.env['HTTP_PROXY'] ?? '').port));
  t.same(outside(), [], 'a loopback connection is not recorded');
  // 0.0.0.0 is not loopback by address, yet Linux connects it to this host: refused here, nothing leaves.
  await attempt('0.0.0.0', 1);
  t.same(outside(), ['0.0.0.0:1'], 'the attempt is recorded as ip:port');
});

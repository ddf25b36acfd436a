import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createProxyServer } from 'http-proxy-3';
import { stopOnSignal } from './lifecycle.js';

/**
 * The floor: a bare http-proxy-3 forwarder with a keep-alive agent and no logic at all — the
 * most a Node proxy on this library can do. One listener per upstream origin given in argv
 * (`name=origin` …); tells the parent `{ name: origin }` over IPC.
 */

const upstreams = process.argv.slice(2).map((arg) => {
  const [name, origin] = arg.split('=') as [string, string];
  return { name, origin };
});

// The same agent settings as the gateway's proxy core, so the floor differs from it only by the logic.
const agent = new http.Agent({ keepAlive: true, maxFreeSockets: 256, scheduling: 'lifo' });
const servers: http.Server[] = [];
const origins: Record<string, string> = {};

for (const { name, origin } of upstreams) {
  const proxy = createProxyServer({ target: origin, agent });
  // Without an error listener the first refused connection would kill the process.
  proxy.on('error', (_error, _req, res) => {
    if (res instanceof http.ServerResponse && !res.headersSent) res.writeHead(502).end();
    else res.destroy();
  });
  const server = http.createServer((req, res) => proxy.web(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origins[name] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  servers.push(server);
}

stopOnSignal(() =>
  Promise.all(
    servers.map(
      (server) =>
        new Promise((resolve) => {
          server.close(resolve);
          server.closeAllConnections();
        }),
    ),
  ),
);
process.send?.(origins);

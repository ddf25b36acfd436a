import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { stopOnSignal } from './lifecycle.js';

/**
 * The refusal floor: a bare Node `http` server that answers every request 401 with a small JSON
 * body in the chat format's error envelope (what the gateway answers a wrong key), without
 * looking at the request — the least a Node server can spend on a refusal. Tells the parent its
 * origin over IPC.
 */

const BODY = JSON.stringify({
  error: { message: 'The key is not valid: send Authorization: Bearer sl-….', type: 'invalid_api_key', param: null, code: 'invalid_api_key' },
});

const server = http.createServer((_req, res) => {
  res.writeHead(401, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(BODY) }).end(BODY);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

stopOnSignal(
  () =>
    new Promise((resolve) => {
      server.close(resolve);
      server.closeAllConnections();
    }),
);
process.send?.(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);

import { connect, type Socket } from 'node:net';
import t, { type Test } from 'tap';
import { LINGER_MS } from '../../src/http/unread-upload.js';
import { raw, rawHttp, startHarness } from '../helpers/harness.js';
import { pluginConfig } from '../helpers/ops.js';

/**
 * The edge's early answers outside the API's calls: an upload they do not read is discarded for
 * at most LINGER_MS, not held until the request timeout; an undecodable path is the 400 page
 * wherever it points; an unknown dashboard asset is an unknown path like any other, with the
 * dashboard's security headers.
 */

/** A raw connection that announces an upload, sends a little of it, and trickles on (bounded). */
function slowUpload(t: { teardown(fn: () => unknown): void }, origin: string, head: string): { received: () => string; closed: Promise<number> } {
  const { hostname, port } = new URL(origin);
  const socket: Socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const started = Date.now();
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(Date.now() - started)));
  socket.write(`${head}Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"a":`);
  const drip = setInterval(() => (socket.destroyed || Date.now() - started > LINGER_MS + 15_000 ? clearInterval(drip) : socket.write(' ')), 100);
  t.teardown(() => {
    clearInterval(drip);
    socket.destroy();
  });
  return { received: () => text, closed };
}

t.test('a slow upload answered before it is read is cut after the linger, not the 60 s request timeout', async (t) => {
  const h = await startHarness(t, { env: { GATEWAY_REQUEST_TIMEOUT_MS: '60000' } });
  const cases = [
    ['an unknown path (404)', 'POST /nope HTTP/1.1\r\nHost: x\r\n', /^HTTP\/1\.1 404 [\s\S]*"not_found"/],
    [
      'a wrong admin token (401)',
      'POST /admin/v1/keys HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer wrong-token\r\n',
      /^HTTP\/1\.1 401 [\s\S]*"invalid_api_key"/,
    ],
    ['the model list, wrong method (405)', 'POST /v1/models HTTP/1.1\r\nHost: x\r\n', /^HTTP\/1\.1 405 [\s\S]*allow: GET, HEAD/i],
  ] as const;
  await cutAfterLinger(t, h.origin, cases);
});

type Case = readonly [name: string, head: string, answer: RegExp];

/** Sends each case as a slow upload at once; each must be answered, its close announced, and cut within the linger. */
async function cutAfterLinger(t: Test, origin: string, cases: readonly Case[]): Promise<void> {
  const uploads = cases.map(([, head]) => slowUpload(t, origin, head));
  const bound = LINGER_MS + 3_000;
  const held = await Promise.all(
    uploads.map(({ closed }) => Promise.race([closed, new Promise<number>((resolve) => setTimeout(() => resolve(Infinity), bound))])),
  );
  cases.forEach(([name, , answer], i) => {
    t.match(uploads[i]?.received(), answer, `${name}: answered`);
    t.match(uploads[i]?.received(), /connection: close/i, `${name}: the close announced`);
    t.ok((held[i] ?? Infinity) < bound, `${name}: cut after ${held[i]} ms (linger ${LINGER_MS} ms)`);
  });
}

t.test('a body sent with a GET, keyless, is discarded after the answer and cut after the linger, on the gateway port and a side port', async (t) => {
  const token = 'metrics-token-0123456789';
  const h = await startHarness(t, { env: { GATEWAY_REQUEST_TIMEOUT_MS: '60000' }, configure: pluginConfig('metrics', { port: 0, token }) });
  const side = h.logs.map((l) => JSON.parse(l)).find((l) => l.msg === 'metrics listening on their own port')?.origin as string;
  await cutAfterLinger(t, h.origin, [
    ['the liveness check (200)', 'GET /healthz HTTP/1.1\r\nHost: x\r\n', /^HTTP\/1\.1 200 /],
    ['the status page (200)', 'GET /status HTTP/1.1\r\nHost: x\r\n', /^HTTP\/1\.1 200 [\s\S]*text\/html/],
    ['the model list (200)', 'GET /v1/models HTTP/1.1\r\nHost: x\r\n', /^HTTP\/1\.1 200 [\s\S]*"object":"list"/],
    ['the usage report without a key (401)', 'GET /v1/usage HTTP/1.1\r\nHost: x\r\n', /^HTTP\/1\.1 401 /],
  ]);
  await cutAfterLinger(t, side, [['metrics on their own port, no token (401)', 'GET /metrics HTTP/1.1\r\nHost: x\r\n', /^HTTP\/1\.1 401 /]]);
});

t.test("an undecodable path is the 400 page wherever it points; an unknown dashboard asset the 404 envelope, with the dashboard's headers", async (t) => {
  const h = await startHarness(t);
  for (const path of ['/v1/%zz', '/status%zz', '/nope/%E0%A4%A']) {
    const res = await raw(h.origin, 'GET', path);
    t.equal(res.status, 400, `${path}: 400`);
    t.match(res.headers.get('content-type'), /^text\/html/);
    t.match(res.text, /<h1>400 Bad Request<\/h1>[\s\S]*could not be decoded/);
  }
  const asset = await raw(h.origin, 'GET', '/dashboard/assets/nope.js');
  t.equal(asset.status, 404);
  t.match(asset.json(), { error: { type: 'not_found', code: 'not_found', message: /^Unknown path GET \/dashboard\/assets\/nope\.js/ } });
  // docs/dashboard.md: every dashboard response carries its security headers, the edge's answers under /dashboard too.
  for (const [method, path, status] of [
    ['GET', '/dashboard/assets/nope.js', 404],
    ['GET', '/dashboard/nope', 404],
    ['POST', '/dashboard', 404],
    ['GET', '/dashboard/assets/%zz', 400],
  ] as const) {
    const res = await raw(h.origin, method, path);
    t.equal(res.status, status, `${method} ${path}: ${status}`);
    t.match(res.headers.get('content-security-policy'), /^default-src 'none'; script-src 'self'; [\s\S]*frame-ancestors 'none'$/, `${method} ${path}: its CSP`);
    t.equal(res.headers.get('x-content-type-options'), 'nosniff');
    t.equal(res.headers.get('referrer-policy'), 'no-referrer');
  }
  t.equal((await raw(h.origin, 'GET', '/nope/%41')).status, 404, 'a path that decodes is still an unknown one');
  const bodyless = await rawHttp(h.origin, 'GET', '/nope', { headers: { connection: 'keep-alive' } });
  t.equal(bodyless.headers.connection, 'keep-alive', 'a 404 with no upload to discard keeps its connection');
});

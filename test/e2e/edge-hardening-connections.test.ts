import { connect, type Socket } from 'node:net';
import t from 'tap';
import { LINGER_MS } from '../../src/http/unread-upload.js';
import { startHarness, type Harness } from '../helpers/harness.js';

/**
 * Bad requests that never reach the app (a parser timeout, an unknown `Expect`, `CONNECT`) get
 * the edge's page, and a connection refused so is closed within a bound even while the caller
 * keeps sending: a caller without a key cannot hold it open by trickling bytes.
 */

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A raw connection that does not close its side when the gateway closes its own (as an attacker would not). */
function open(t: Teardown, origin: string): { socket: Socket; closed: Promise<string> } {
  const { hostname, port } = new URL(origin);
  const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: true });
  t.teardown(() => socket.destroy());
  let text = '';
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  return { socket, closed: new Promise((resolve) => socket.once('close', () => resolve(text))) };
}

const within = <T>(ms: number, promise: Promise<T>): Promise<T | 'still open'> =>
  Promise.race([promise, new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), ms))]);

/** One byte every 100 ms, for at most `ms` (it stops when the connection is cut). */
function trickle(t: Teardown, socket: Socket, ms: number): void {
  const started = Date.now();
  const timer = setInterval(() => (socket.destroyed || Date.now() - started > ms ? clearInterval(timer) : socket.write('x')), 100);
  t.teardown(() => clearInterval(timer));
}

/**
 * Opens a connection, writes `request`, then keeps sending a byte every 100 ms: what the gateway
 * sent once it closed the connection, or 'still open' after `boundMs`.
 */
async function keptSending(t: Teardown, origin: string, request: string, boundMs: number): Promise<string> {
  const c = open(t, origin);
  c.socket.write(request);
  trickle(t, c.socket, LINGER_MS + 15_000);
  return within(boundMs, c.closed);
}

const harness = (t: Teardown): Promise<Harness> => startHarness(t, { env: { GATEWAY_HEADERS_TIMEOUT_MS: '500', GATEWAY_REQUEST_TIMEOUT_MS: '60000' } });

t.test('a caller that trickles its headers past the timeout gets the 408 page, and its connection is cut though it keeps sending', async (t) => {
  const h = await harness(t);
  // The header timeout (500 ms, checked every second), then the linger.
  const bound = LINGER_MS + 4_000;
  const text = await keptSending(t, h.origin, 'GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Slow: ', bound);
  t.not(text, 'still open', `closed within ${bound} ms while the caller kept sending`);
  t.match(text, /^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*connection: close[\s\S]*<h1>408 Request Timeout<\/h1>/);
});

t.test('an Expect other than 100-continue: the 417 page before the key is looked at, the upload not read', async (t) => {
  const h = await harness(t);
  const request = 'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{';
  const text = await keptSending(t, h.origin, request, LINGER_MS + 3_000);
  t.not(text, 'still open', 'the upload is discarded for a bounded time');
  t.match(text, /^HTTP\/1\.1 417 Expectation Failed\r\n[\s\S]*content-type: text\/html[\s\S]*<h1>417 Expectation Failed<\/h1>/);

  const bodyless = open(t, h.origin);
  bodyless.socket.end('GET /v1/models HTTP/1.1\r\nHost: x\r\nExpect: foo\r\nConnection: close\r\n\r\n');
  t.match(await within(3_000, bodyless.closed), /^HTTP\/1\.1 417 [\s\S]*supports only Expect: 100-continue/);
});

t.test('CONNECT gets the 400 page, not a bare close, and cannot hold the connection', async (t) => {
  const h = await harness(t);
  const text = await keptSending(t, h.origin, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', LINGER_MS + 3_000);
  t.not(text, 'still open', 'closed within the linger though the caller keeps sending');
  t.match(text, /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*content-type: text\/html[\s\S]*CONNECT is not supported/);
});

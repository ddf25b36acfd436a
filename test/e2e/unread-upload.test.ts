import { connect, type Socket } from 'node:net';
import t from 'tap';
import { KEPT_UPLOAD_BYTES, LINGER_MS } from '../../src/http/unread-upload.js';
import { startHarness, type Harness } from '../helpers/harness.js';

/**
 * An upload the gateway refuses before reading it (413 from the declared length, 401 from the
 * headers) is read and discarded after the answer until the caller closes, so the caller reads
 * the answer and not a reset; the discarding is bounded in time.
 */

const LIMIT = 1024 * 1024;

interface Connection {
  socket: Socket;
  /** Everything received so far. */
  received(): string;
  /** Everything received, once the connection closed; and whether it ended in a reset. */
  closed: Promise<{ text: string; reset: boolean }>;
}

/** `stubborn`: the caller does not close its side when the gateway closes its own (as an attacker would not). */
function open(t: { teardown(fn: () => unknown): void }, origin: string, stubborn = false): Connection {
  const { hostname, port } = new URL(origin);
  const socket = connect({ port: Number(port), host: hostname, allowHalfOpen: stubborn });
  t.teardown(() => socket.destroy());
  let text = '';
  let reset = false;
  socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
  socket.on('error', (error: NodeJS.ErrnoException) => (reset = error.code === 'ECONNRESET'));
  const closed = new Promise<{ text: string; reset: boolean }>((resolve) => socket.once('close', () => resolve({ text, reset })));
  return { socket, received: () => text, closed };
}

const head = (length: number, key?: string, connection = 'keep-alive'): string =>
  `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\n${key ? `Authorization: Bearer ${key}\r\n` : ''}Content-Type: application/json\r\nContent-Length: ${length}\r\nConnection: ${connection}\r\n\r\n`;

async function harness(t: { teardown(fn: () => unknown): void }): Promise<Harness> {
  return startHarness(t, { env: { GATEWAY_MAX_BODY_BYTES: String(LIMIT), GATEWAY_REQUEST_TIMEOUT_MS: '60000' } });
}

const until = async (check: () => boolean, ms: number): Promise<boolean> => {
  const end = Date.now() + ms;
  while (!check() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 20));
  return check();
};

t.test('an oversized upload written in one go: every caller reads its 413, none a reset', async (t) => {
  const h = await harness(t);
  const { key } = await h.createKey();
  const body = Buffer.alloc(16 * LIMIT, 0x20);
  const answers = [];
  for (let i = 0; i < 20; i += 1) {
    const c = open(t, h.origin);
    // Half of them asking to close, as one-shot clients do: Node's server then closes right after the answer.
    c.socket.write(Buffer.concat([Buffer.from(head(body.length, key, i % 2 ? 'close' : 'keep-alive')), body]));
    answers.push(await c.closed);
  }
  t.same(
    answers.map((a) => a.text.startsWith('HTTP/1.1 413 ')),
    Array(20).fill(true),
    'twenty 413s read whole',
  );
  t.same(
    answers.map((a) => a.reset),
    Array(20).fill(false),
    'no connection reset',
  );
  t.match(answers[0]?.text, /"code":"payload_too_large"/);
  t.match(answers[0]?.text, /connection: close/i, 'the connection is announced closed');

  const keyless = open(t, h.origin);
  keyless.socket.write(head(LIMIT / 2));
  keyless.socket.write(Buffer.alloc(LIMIT / 2, 0x20));
  const refused = await keyless.closed;
  t.match(refused.text, /^HTTP\/1\.1 401 /, 'a keyless upload gets its 401 read too');
  t.notOk(refused.reset);
});

t.test('a caller that goes on uploading after the answer is read to the end of its upload, then closed', async (t) => {
  const h = await harness(t);
  const { key } = await h.createKey();
  const c = open(t, h.origin);
  const total = 4 * LIMIT;
  c.socket.write(head(total, key, 'close'));
  // The upload trickles on for about a second after the 413 came.
  for (let sent = 0; sent < total; sent += total / 16) {
    c.socket.write(Buffer.alloc(total / 16, 0x20));
    await new Promise((resolve) => setTimeout(resolve, 60));
  }
  c.socket.end();
  const { text, reset } = await c.closed;
  t.match(text, /^HTTP\/1\.1 413 [\s\S]*connection: close/i, 'the 413, announcing the close');
  t.notOk(reset, 'closed without a reset');
});

t.test('the discarding is bounded: an upload that drips on is cut after the linger time', async (t) => {
  const h = await harness(t);
  const { key } = await h.createKey();
  const c = open(t, h.origin, true);
  c.socket.write(head(25 * LIMIT, key));
  c.socket.write(Buffer.alloc(LIMIT / 4, 0x20));
  const started = Date.now();
  t.ok(await until(() => c.received().startsWith('HTTP/1.1 413 '), 5_000), 'the 413 comes at once');
  // One byte every 100 ms: still uploading, never done. Once the gateway cut the connection, the next byte meets a reset.
  const drip = setInterval(() => c.socket.write(' '), 100);
  t.teardown(() => clearInterval(drip));
  const { text } = await Promise.race([c.closed, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('never cut')), LINGER_MS + 10_000))]);
  clearInterval(drip);
  const held = Date.now() - started;
  t.match(text, /^HTTP\/1\.1 413 /);
  t.ok(held >= LINGER_MS - 500 && held < LINGER_MS + 3_000, `cut after ${held} ms (linger ${LINGER_MS} ms; the request timeout is 60 s)`);
});

t.test('a small upload refused unread keeps its connection: the next request on it is answered too', async (t) => {
  const h = await harness(t);
  const c = open(t, h.origin);
  const body = Buffer.alloc(KEPT_UPLOAD_BYTES, 0x20);
  const answered = (n: number): boolean => (c.received().match(/HTTP\/1\.1 401 /g) ?? []).length >= n;
  c.socket.write(Buffer.concat([Buffer.from(head(body.length, 'sl-not-a-key')), body]));
  t.ok(await until(() => answered(1), 5_000), 'the first 401');
  c.socket.write(Buffer.concat([Buffer.from(head(body.length)), body]));
  t.ok(await until(() => answered(2), 5_000), 'a second request on the same connection gets its 401');
  t.notMatch(c.received(), /connection: close/i, 'neither answer announces a close');
  t.equal(c.socket.destroyed, false, 'the connection is still open');

  // One byte more than the bound: the refused upload's connection closes after the answer, as before.
  const big = open(t, h.origin);
  big.socket.write(Buffer.concat([Buffer.from(head(KEPT_UPLOAD_BYTES + 1)), Buffer.alloc(KEPT_UPLOAD_BYTES + 1, 0x20)]));
  const { text } = await big.closed;
  t.match(text, /^HTTP\/1\.1 401 [\s\S]*connection: close/i);
});

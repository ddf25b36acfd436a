import { request } from 'node:http';
import t, { type Test } from 'tap';
import WebSocket from 'ws';
import type { WebSocketConfig } from '../../src/config/schema.js';
import { connect, isOpen, openResponsesSocket, type Json } from '../helpers/responses-socket.js';
import { startHarness, type Harness } from '../helpers/harness.js';

/**
 * The bounds of WebSocket mode (server.websocket): connections per key, idle time, messages per
 * connection, message size, one response in flight, the graceful shutdown (a slow reader:
 * test/unit/websocket-message-call.test.ts); and an
 * upgrade the gateway does not offer, served as a plain request.
 */

const withLimits = (t: Test, limits: Partial<WebSocketConfig>): Promise<Harness> =>
  startHarness(t, { configure: (config) => Object.assign(config.server.websocket, limits) });

const hi = (extra: Json = {}): Json => ({ type: 'response.create', model: 'gamma-5.4', input: 'Hi [[sim:tokens=2]]', ...extra });

t.test('connections per key: one more is a plain 429 at the upgrade; a closed one makes room', async (t) => {
  const h = await withLimits(t, { max_connections_per_key: 2 });
  const { key } = await h.createKey();
  const first = await connect(h.origin, key);
  const second = await connect(h.origin, key);
  const third = await openResponsesSocket(h.origin, key);
  t.notOk(isOpen(third));
  t.match(third, { status: 429, body: { error: { type: 'rate_limited', code: 'websocket_connections_exceeded' } } });
  const { key: otherKey } = await h.createKey();
  const other = await connect(h.origin, otherKey);
  t.ok(other, "another key's connections are its own");
  first.close();
  await first.closed();
  const again = await connect(h.origin, key);
  t.equal((await again.turn(hi())).at(-1)?.['type'], 'response.completed');
  for (const socket of [second, other, again]) socket.close();
});

t.test('idle time: a connection without a message is closed', async (t) => {
  const h = await withLimits(t, { idle_timeout_ms: 150 });
  const { key } = await h.createKey();
  const socket = await connect(h.origin, key);
  t.equal((await socket.turn(hi())).at(-1)?.['type'], 'response.completed', 'a message keeps it open');
  const started = Date.now();
  const closed = await socket.closed();
  t.equal(closed.code, 1000);
  t.match(closed.reason, /No message for 150 ms/);
  t.ok(Date.now() - started >= 100);
});

t.test('messages per connection: one more is an error message, then the close', async (t) => {
  const h = await withLimits(t, { max_messages: 2 });
  const { key } = await h.createKey();
  const socket = await connect(h.origin, key);
  await socket.turn(hi());
  await socket.turn(hi());
  const refused = await socket.turn(hi());
  t.match(refused.at(-1), { type: 'error', status: 429, error: { code: 'websocket_message_limit_reached' } });
  t.equal((await socket.closed()).code, 1008);
  t.equal(h.gamma.requests.length, 2, 'the third never reached an upstream');
});

t.test('lifetime: after max_connection_ms, the error websocket_connection_limit_reached, then the close', async (t) => {
  const h = await withLimits(t, { max_connection_ms: 300 });
  const { key } = await h.createKey();
  const socket = await connect(h.origin, key);
  const closed = await socket.closed();
  t.match(socket.received.at(-1), { type: 'error', status: 400, error: { code: 'websocket_connection_limit_reached' } });
  t.equal(closed.code, 1000);
});

t.test('a binary message: an error message, then the close (1003)', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const socket = await connect(h.origin, key);
  socket.ws.send(Buffer.from(JSON.stringify(hi())), { binary: true });
  t.equal((await socket.closed()).code, 1003);
  t.match(socket.received, [{ type: 'error', status: 400 }]);
  t.equal(h.gamma.requests.length, 0);
});

t.test('message size: a larger message closes the connection (1009) before it is read whole', async (t) => {
  const h = await withLimits(t, { max_message_bytes: 1024 });
  const { key } = await h.createKey();
  const socket = await connect(h.origin, key);
  socket.ws.send(JSON.stringify(hi({ input: 'x'.repeat(2048) })));
  t.equal((await socket.closed()).code, 1009);
  t.equal(h.gamma.requests.length, 0);
});

t.test('one response in flight: messages sent together are answered one after the other, in order', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const socket = await connect(h.origin, key);
  const all = new Promise<Json[]>((resolve) => {
    socket.ws.on('message', () => {
      if (socket.received.filter((message) => message['type'] === 'response.completed').length === 2) resolve(socket.received);
    });
  });
  socket.ws.send(JSON.stringify(hi({ input: 'first [[sim:tokens=3]] [[sim:chunk_delay_ms=40]]' })));
  socket.ws.send(JSON.stringify(hi({ input: 'second [[sim:tokens=3]]' })));
  const messages = await all;
  const types = messages.map((message) => message['type'] as string);
  const firstDone = types.indexOf('response.completed');
  t.equal(types.lastIndexOf('response.created'), firstDone + 1, 'the second response began after the first had ended');
  t.match(messages[firstDone]?.['response'], { output: [{ content: [{ text: /./ }] }] });
  t.same(
    h.gamma.requests.map((req) => JSON.stringify(req.body).includes('first')),
    [true, false],
    'the upstream was asked in order',
  );
  t.equal(messages[firstDone + 1]?.['sequence_number'], 0, 'each response its own numbering');
  socket.close();
});

t.test('what waits to be sent: at the smallest bound, reading pauses at each message and resumes as it is sent', async (t) => {
  const h = await withLimits(t, { max_buffered_bytes: 1 });
  const { key } = await h.createKey();
  const socket = await connect(h.origin, key);
  const messages = await socket.turn(hi({ input: 'Hi [[sim:tokens=200]]' }));
  t.equal(messages.at(-1)?.['type'], 'response.completed');
  t.same(
    messages.map((message) => message['sequence_number']),
    messages.map((_, index) => index),
    'every event, in order',
  );
  t.equal(messages.filter((message) => message['type'] === 'response.output_text.delta').length, 200);
  socket.close();
});

t.test('graceful shutdown: a reply still running when the grace period ends is cut', async (t) => {
  const h = await startHarness(t, { configure: (config) => (config.server.shutdown_grace_ms = 200) });
  const { key } = await h.createKey();
  const busy = await connect(h.origin, key);
  busy.ws.send(JSON.stringify(hi({ input: 'Slow [[sim:tokens=100]] [[sim:chunk_delay_ms=100]]' })));
  await new Promise<void>((resolve) => busy.ws.once('message', () => resolve()));
  const closing = h.gateway.close();
  t.equal((await busy.closed()).code, 1006, 'cut, not closed');
  await closing.catch(() => undefined);
  t.notOk(
    busy.received.some((message) => message['type'] === 'response.completed'),
    'the reply did not end',
  );
});

t.test('graceful shutdown: an idle connection closes at once, a busy one after its reply', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const idle = await connect(h.origin, key);
  const busy = await connect(h.origin, key);
  const reply = busy.turn(hi({ input: 'Slow [[sim:tokens=5]] [[sim:chunk_delay_ms=100]]' }));
  await new Promise<void>((resolve) => busy.ws.once('message', () => resolve()));
  const closing = h.gateway.close();
  t.equal((await idle.closed()).code, 1001, 'the idle one: going away');
  const messages = await reply;
  t.equal(messages.at(-1)?.['type'], 'response.completed', 'the reply in flight ends whole');
  t.equal((await busy.closed()).code, 1001);
  await closing;
});

t.test('an upgrade the gateway does not offer is served as a plain request', async (t) => {
  const h = await startHarness(t);
  const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      `${h.origin}/v1/models`,
      { headers: { connection: 'Upgrade, HTTP2-Settings', upgrade: 'h2c', 'http2-settings': 'AAMAAABkAAQAoAAAAAIAAAAA' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end();
  });
  t.equal(answer.status, 200);
  t.match(JSON.parse(answer.body), { object: 'list' });

  // curl --http2 over http:// asks for h2c on a POST with its body.
  const { key } = await h.createKey();
  const body = JSON.stringify({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'Hi' }] });
  const posted = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(
      `${h.origin}/v1/chat/completions`,
      {
        method: 'POST',
        headers: {
          connection: 'Upgrade, HTTP2-Settings',
          upgrade: 'h2c',
          'http2-settings': 'AAMAAABkAAQAoAAAAAIAAAAA',
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  t.equal(posted.status, 200, 'a POST asking for h2c is answered as HTTP/1.1, its body read');
  t.match(JSON.parse(posted.body), { object: 'chat.completion' });

  const elsewhere = new WebSocket(`${h.origin.replace('http', 'ws')}/v1/chat/completions`);
  const status = await new Promise<number>((resolve) => elsewhere.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0)));
  t.equal(status, 405, 'a WebSocket upgrade of a path without WebSocket mode is the path answering GET');
});

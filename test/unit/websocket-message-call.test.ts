import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import type { WebSocketSession } from '../../src/chain/websocket.js';
import { messageCallHeaders, runMessageCall, sessionOf } from '../../src/http/websocket/message-call.js';
import type { Call } from '../../src/chain/call.js';

/**
 * One WebSocket message's call through an HTTP server over an in-memory connection: its events
 * handed over in order, a refusal's body read back, the session reachable from the call, and
 * backpressure — while the connection cannot take more, the server's writes wait.
 */

const session: WebSocketSession = { message: () => Promise.resolve(), errorMessage: () => '' };

async function serve(t: Test, handler: Parameters<typeof createServer>[1]): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  t.ok((server.address() as AddressInfo).port > 0);
  return server;
}

const base = { session, path: '/v1/responses', headers: { authorization: 'Bearer sl-x' }, remoteAddress: '10.0.0.1', onGone: () => () => undefined };

t.test('the events of a streamed answer, in order; the request as the server saw it', async (t) => {
  let seen: { method?: string; url?: string; auth?: string; body: string; address?: string; session: unknown } | null = null;
  const server = await serve(t, (req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      seen = {
        method: req.method,
        url: req.url,
        auth: req.headers.authorization,
        body,
        address: req.socket.remoteAddress,
        session: sessionOf({ req } as unknown as Call),
      };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: a\ndata: {"n":1}\n\n');
      res.end('event: b\ndata: {"n":2}\n\n');
    });
  });
  const events: string[] = [];
  const answer = await runMessageCall({
    ...base,
    server,
    body: '{"model":"m"}',
    onEvent: (data) => events.push(data),
    ready: () => true,
    whenReady: () => Promise.resolve(),
  });
  t.same(answer, { status: 200, error: null });
  t.same(events, ['{"n":1}', '{"n":2}']);
  t.same(seen, { method: 'POST', url: '/v1/responses', auth: 'Bearer sl-x', body: '{"model":"m"}', address: '10.0.0.1', session });
});

t.test("a refusal's status and JSON body; an answer that is not JSON is named by its status", async (t) => {
  let status = 403;
  const server = await serve(t, (req, res) => {
    req.resume();
    req.on('end', () => {
      if (status === 403) res.writeHead(403, { 'content-type': 'application/json' }).end('{"error":{"code":"model_not_allowed"}}');
      else res.writeHead(502, { 'content-type': 'text/html' }).end('<html>');
    });
  });
  const call = (): ReturnType<typeof runMessageCall> =>
    runMessageCall({ ...base, server, body: '{}', onEvent: () => undefined, ready: () => true, whenReady: () => Promise.resolve() });
  t.same(await call(), { status: 403, error: { error: { code: 'model_not_allowed' } } });
  status = 502;
  t.match(await call(), { status: 502, error: { error: { message: 'The call was answered 502.', code: 'internal_error' } } });
});

t.test('backpressure: while the connection cannot take more, the server cannot write on', async (t) => {
  const frame = `data: ${JSON.stringify({ text: 'x'.repeat(1000) })}\n\n`;
  const total = 10_000;
  let written = 0;
  const server = await serve(t, (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const more = (): void => {
      while (written < total) {
        written += 1;
        if (!res.write(frame)) {
          res.once('drain', more);
          return;
        }
      }
      res.end();
    };
    more();
  });
  let ready = false;
  let release: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let events = 0;
  const answer = runMessageCall({ ...base, server, body: '{}', onEvent: () => (events += 1), ready: () => ready, whenReady: () => gate });
  await new Promise((resolve) => setTimeout(resolve, 300));
  t.ok(written < 500, `the server wrote ${written} of ${total} frames (10 MB) while the connection was full`);
  ready = true;
  release();
  t.same(await answer, { status: 200, error: null });
  t.equal(events, total, 'then every event, once');
});

t.test('the headers a message call carries: not the handshake, the connection or the body', async (t) => {
  t.same(
    messageCallHeaders({
      host: 'gw',
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-key': 'k',
      'sec-websocket-version': '13',
      'content-length': '5',
      authorization: 'Bearer sl-x',
      'x-api-key': 'sl-x',
      'openai-beta': 'responses_websockets=2026-02-06',
    }),
    { authorization: 'Bearer sl-x', 'x-api-key': 'sl-x', 'openai-beta': 'responses_websockets=2026-02-06' },
  );
});

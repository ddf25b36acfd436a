import { connect, type Socket } from 'node:net';
import t from 'tap';
import { ADMIN_TOKEN, chatBody, raw, startHarness, type Harness } from '../helpers/harness.js';
import { pluginConfig } from '../helpers/ops.js';

/**
 * What a caller, with or without a key, can hold of the gateway: connections are bounded in
 * number and in how long they may take to send a request; what Node's HTTP parser refuses is
 * answered with the edge's page, not an empty close.
 */

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** A raw TCP connection to the gateway; resolves with everything it received once it closed. */
function rawConnection(t: Teardown, origin: string): { socket: Socket; closed: Promise<string> } {
  const { hostname, port } = new URL(origin);
  const socket = connect(Number(port), hostname);
  t.teardown(() => socket.destroy());
  let received = '';
  socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')));
  socket.on('error', () => undefined);
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  return { socket, closed };
}

const within = <T>(ms: number, promise: Promise<T>): Promise<T | 'still open'> =>
  Promise.race([promise, new Promise<'still open'>((resolve) => setTimeout(() => resolve('still open'), ms))]);

async function harness(t: Teardown): Promise<Harness> {
  return startHarness(t, {
    env: { GATEWAY_HEADERS_TIMEOUT_MS: '600', GATEWAY_REQUEST_TIMEOUT_MS: '1500', GATEWAY_KEEP_ALIVE_TIMEOUT_MS: '500', GATEWAY_MAX_CONNECTIONS: '40' },
  });
}

t.test('slow clients are cut off: headers, then the whole request, then idle keep-alive', async (t) => {
  const h = await harness(t);
  const { key } = await h.createKey();
  // 30 clients sending their headers one byte every 100 ms.
  const slow = Array.from({ length: 30 }, () => rawConnection(t, h.origin));
  const drips = slow.map(({ socket }) => {
    const request = 'POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n';
    let i = 0;
    const timer = setInterval(() => (i < request.length ? socket.write(request[i++] as string) : clearInterval(timer)), 100);
    return timer;
  });
  t.teardown(() => drips.forEach(clearInterval));
  const answers = await Promise.all(slow.map(({ closed }) => within(3000, closed)));
  t.equal(answers.filter((a) => a === 'still open').length, 0, 'every slow-header connection was closed within 3 s (timeout 600 ms)');
  t.match(answers[0], /^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*content-type: text\/html[\s\S]*<h1>408 Request Timeout<\/h1>/, "with the edge's page");

  // Headers in time, then a body that never completes: the request timeout ends it.
  const body = rawConnection(t, h.origin);
  body.socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"model":`,
  );
  t.not(await within(4000, body.closed), 'still open', 'a body that never completes is cut off at the request timeout');

  // A finished exchange on a kept-alive connection that then says nothing.
  const idle = rawConnection(t, h.origin);
  idle.socket.write('GET /v1/models HTTP/1.1\r\nHost: x\r\n\r\n');
  const idleAnswer = await within(3000, idle.closed);
  t.match(idleAnswer, /^HTTP\/1\.1 200 OK/, 'answered, then the idle connection closed at the keep-alive timeout');
});

t.test('the connection cap: connections beyond it are closed on arrival, and calls go on once they are gone', async (t) => {
  const h = await harness(t);
  const held = Array.from({ length: 40 }, () => rawConnection(t, h.origin));
  await new Promise((resolve) => setTimeout(resolve, 200));
  const extra = Array.from({ length: 10 }, () => rawConnection(t, h.origin));
  const refused = await Promise.all(extra.map(({ closed }) => within(2000, closed)));
  t.equal(refused.filter((r) => r === '').length, 10, 'each connection over the cap of 40 was closed at once, unanswered');
  held.forEach(({ socket }) => socket.destroy());
  await new Promise((resolve) => setTimeout(resolve, 200));
  const { key } = await h.createKey();
  const after = await raw(h.origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: chatBody(),
  });
  t.equal(after.status, 200, 'calls are served again');
});

t.test("what Node's parser refuses gets the edge's page, not an empty close", async (t) => {
  const h = await harness(t);
  const garbage = rawConnection(t, h.origin);
  garbage.socket.write('NOT HTTP AT ALL\r\n\r\n');
  t.match(await garbage.closed, /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*<h1>400 Bad Request<\/h1>/);

  const smuggled = rawConnection(t, h.origin);
  smuggled.socket.write('POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n');
  t.match(await smuggled.closed, /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*text\/html/, 'Content-Length beside Transfer-Encoding');

  const { key } = await h.createKey();
  const framing = rawConnection(t, h.origin);
  framing.socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"mod\r\nzz\r\n`,
  );
  t.match(await framing.closed, /^HTTP\/1\.1 400 Bad Request\r\n[\s\S]*<h1>400 Bad Request<\/h1>/, 'bad chunk framing in the middle of a body being read');
  const alive = await raw(h.origin, 'GET', '/healthz');
  t.equal(alive.status, 200, 'the gateway carries on');

  const big = rawConnection(t, h.origin);
  big.socket.write(`GET /v1/models HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  t.match(await big.closed, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n[\s\S]*<h1>431 Request Header Fields Too Large<\/h1>/);
});

/** The edge's page of a refusal, as raw bytes on the wire: status line, an HTML body with its heading. */
const edgePage = (status: number, title: string): RegExp =>
  new RegExp(`^HTTP/1\\.1 ${status} ${title}\\r\\n(?=[\\s\\S]*content-type: text/html; charset=utf-8)[\\s\\S]*<h1>${status} ${title}</h1>`, 'i');

t.test("every refusal Node makes before the gateway sees a request is the edge's page, on the gateway's port and a side port", async (t) => {
  const h = await startHarness(t, { configure: pluginConfig('metrics', { port: 0 }) });
  const side = h.logs.map((l) => JSON.parse(l) as { msg: string; origin?: string }).find((l) => l.msg === 'metrics listening on their own port')
    ?.origin as string;
  const { key } = await h.createKey();
  const cases = [
    ['an HTTP/1.1 request without Host', 'GET /healthz HTTP/1.1\r\n\r\n', 400, 'Bad Request'],
    ['an upload without Host', 'POST /v1/chat/completions HTTP/1.1\r\nContent-Length: 5\r\n\r\n{"a":', 400, 'Bad Request'],
    ['a space in a header name', 'GET /healthz HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n', 400, 'Bad Request'],
    ['a control character in a header value', 'GET /healthz HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n', 400, 'Bad Request'],
    ['a request line without a path', 'GET  HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'Bad Request'],
    ['an unknown HTTP version', 'GET /healthz HTTP/9.9\r\nHost: x\r\n\r\n', 400, 'Bad Request'],
    ['an unknown method', 'FETCH!ME /healthz HTTP/1.1\r\nHost: x\r\n\r\n', 400, 'Bad Request'],
    ['two different Content-Lengths', 'POST /nope HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd', 400, 'Bad Request'],
    ["HTTP/2's connection preface", 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 400, 'Bad Request'],
    ['an Expect other than 100-continue', 'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: 200-ok\r\n\r\n', 417, 'Expectation Failed'],
    ['headers over 16 KiB', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`, 431, 'Request Header Fields Too Large'],
  ] as const;
  for (const [origin, where] of [
    [h.origin, "the gateway's port"],
    [side, 'the metrics port'],
  ] as const) {
    for (const [name, request, status, title] of cases) t.match(await exchange(t, origin, request), edgePage(status, title), `${where}: ${name}`);
  }
  // Chunk extensions over Node's 16 KiB, in a body being read (a keyed call).
  const extensions = `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n5;${'a'.repeat(20_000)}\r\n{"mod\r\n`;
  t.match(await exchange(t, h.origin, extensions), edgePage(413, 'Payload Too Large'), 'chunk extensions over 16 KiB');
  t.match(
    await exchange(t, h.origin, 'GET /healthz HTTP/1.1\r\n\r\n'),
    /^HTTP\/1\.1 400 [^]*connection: close\r\n/i,
    'without Host the connection closes, as Node would',
  );
  t.match(await exchange(t, h.origin, 'GET /healthz HTTP/1.0\r\n\r\n'), /^HTTP\/1\.1 200 /, 'HTTP/1.0 needs no Host');
  t.equal((await raw(h.origin, 'GET', '/healthz')).status, 200, 'the gateway carries on');
});

/** Sends raw request bytes and resolves with the first response's head (and whatever body came with it). */
function exchange(t: Teardown, origin: string, head: string, body?: string, waitMs = 1500): Promise<string> {
  const { socket, closed } = rawConnection(t, origin);
  socket.write(head);
  if (body !== undefined) socket.write(body);
  return within(waitMs, closed).then(async (text) => (text === 'still open' ? (socket.destroy(), await closed) : text));
}

t.test('two Authorization headers are refused, not picked from', async (t) => {
  const h = await harness(t);
  const { key } = await h.createKey();
  const body = chatBody();
  const twice = await exchange(
    t,
    h.origin,
    `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nAuthorization: Bearer sl-someone-else\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`,
    body,
  );
  t.match(twice, /^HTTP\/1\.1 401 /);
  t.match(twice, /"message":"Send exactly one Authorization header\."/);
  t.match(twice, /"code":"invalid_api_key"/);
  t.equal(h.gamma.requests.length, 0, 'nothing reached the upstream');
});

t.test('two Authorization headers are refused on every authenticated surface, whichever comes first', async (t) => {
  const metricsToken = 'metrics-token-0123456789';
  const h = await startHarness(t, {
    configure: (config) => {
      pluginConfig('metrics', { port: 0, token: metricsToken })(config);
      pluginConfig('dashboard', { port: 0 })(config);
    },
  });
  const sideOrigin = (msg: string): string => h.logs.map((l) => JSON.parse(l) as { msg: string; origin?: string }).find((l) => l.msg === msg)?.origin as string;
  const surfaces = [
    ['the admin API', h.origin, '/admin/v1/keys', ADMIN_TOKEN],
    ["the admin API on the dashboard's own port", sideOrigin('dashboard listening on its own port'), '/admin/v1/keys', ADMIN_TOKEN],
    ['the metrics token', sideOrigin('metrics listening on their own port'), '/metrics', metricsToken],
  ] as const;
  for (const [name, origin, path, token] of surfaces) {
    const get = (...authorizations: string[]): Promise<string> =>
      exchange(
        t,
        origin,
        `GET ${path} HTTP/1.1\r\nHost: x\r\n${authorizations.map((a) => `Authorization: Bearer ${a}\r\n`).join('')}Connection: close\r\n\r\n`,
      );
    t.match(await get(token), /^HTTP\/1\.1 200 /, `${name}: the token alone is served`);
    for (const order of [
      [token, 'wrong-token-0123456789'],
      ['wrong-token-0123456789', token],
    ]) {
      const answer = await get(...order);
      t.match(
        answer,
        /^HTTP\/1\.1 401 [\s\S]*"message":"Send exactly one Authorization header\."/,
        `${name}, the right token ${order[0] === token ? 'first' : 'second'}: 401`,
      );
      t.notMatch(answer, /"object":"list"|gateway_requests/, 'nothing of what it guards');
    }
  }
});

t.test('Expect: 100-continue is answered only after the declared length and the key were checked', async (t) => {
  const h = await harness(t);
  const { key } = await h.createKey();
  const huge = await exchange(
    t,
    h.origin,
    `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${25 * 1024 * 1024}\r\nExpect: 100-continue\r\n\r\n`,
  );
  t.match(huge, /^HTTP\/1\.1 413 /, 'a declared 25 MiB gets its 413 at once, without a 100 Continue');
  t.notMatch(huge, /100 Continue/);
  t.match(huge, /connection: close/i, 'and the upload is not waited for');

  const keyless = await exchange(
    t,
    h.origin,
    `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\nExpect: 100-continue\r\n\r\n`,
  );
  t.match(keyless, /^HTTP\/1\.1 401 /, 'no key: 401 without asking for the body');
  t.notMatch(keyless, /100 Continue/);

  const body = chatBody();
  const { socket, closed } = rawConnection(t, h.origin);
  socket.write(
    `POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
  );
  await new Promise<void>((resolve) => socket.once('data', () => resolve()));
  socket.write(body);
  const answered = await closed;
  t.match(answered, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK/, 'a good key gets its 100, then the reply');
});

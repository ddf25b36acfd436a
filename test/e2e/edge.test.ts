import { request } from 'node:http';
import t from 'tap';
import { chatBody, raw, startHarness } from '../helpers/harness.js';

t.test('edge layer: 405 HTML, 404 JSON, 413, bad JSON, and the process keeps serving', async (t) => {
  const h = await startHarness(t, { env: { GATEWAY_MAX_BODY_BYTES: '2048' } });
  const { key } = await h.createKey();
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

  const wrongMethods: Array<[string, string, string]> = [
    ['GET', '/v1/chat/completions', 'POST'],
    ['PUT', '/v1/completions', 'POST'],
    ['DELETE', '/v1/embeddings', 'POST'],
    ['POST', '/v1/models', 'GET, HEAD'],
    ['POST', '/v1/usage', 'GET, HEAD'],
    ['PATCH', '/v1/models/gamma-5.4', 'GET, HEAD'],
  ];
  for (const [method, path, allow] of wrongMethods) {
    const res = await raw(h.origin, method, path, { headers: auth });
    t.equal(res.status, 405, `${method} ${path} → 405`);
    t.match(res.headers.get('content-type'), /^text\/html/, `${method} ${path} is HTML`);
    t.equal(res.headers.get('allow'), allow, `${method} ${path} names the allowed method`);
    t.match(res.text, /<html[\s\S]*405 Method Not Allowed/);
  }

  for (const path of ['/v1/files', '/v1/files/abc', '/v1/audio/speech', '/v1/images/generations', '/v1/nope', '/elsewhere']) {
    const res = await raw(h.origin, 'POST', path, { headers: auth, body: '{}' });
    t.equal(res.status, 404, `${path} → 404`);
    t.match(res.headers.get('content-type'), /^application\/json/);
    t.same(Object.keys(res.json().error).sort(), ['code', 'message', 'param', 'type']);
    t.equal(res.json().error.type, 'not_found');
    t.equal(res.json().error.code, 'not_found');
  }

  const big = chatBody('gamma-5.4', { padding: 'x'.repeat(4096) });
  const tooLarge = await raw(h.origin, 'POST', '/v1/chat/completions', { headers: auth, body: big });
  t.equal(tooLarge.status, 413, 'Content-Length over the limit → 413');
  t.equal(tooLarge.json().error.type, 'payload_too_large');
  t.match(tooLarge.json().error.message, /remote URLs/);

  // Chunked (no Content-Length): the limit is enforced while reading.
  const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = request(`${h.origin}/v1/chat/completions`, { method: 'POST', headers: auth }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.write(big.slice(0, 1000));
    req.end(big.slice(1000));
  });
  t.equal(chunked.status, 413, 'chunked body over the limit → 413 while reading');
  t.equal(JSON.parse(chunked.body).error.code, 'payload_too_large');

  // 413 comes before auth (edge first).
  const noKey413 = await raw(h.origin, 'POST', '/v1/chat/completions', { headers: { 'content-type': 'application/json' }, body: big });
  t.equal(noKey413.status, 413);

  const badJson = await raw(h.origin, 'POST', '/v1/chat/completions', { headers: auth, body: '{"model": "gamma-5.4", ' });
  t.equal(badJson.status, 400);
  t.equal(badJson.json().error.code, 'invalid_json');
  t.equal(badJson.json().error.type, 'invalid_request');

  const notObject = await raw(h.origin, 'POST', '/v1/chat/completions', { headers: auth, body: '[1,2]' });
  t.equal(notObject.status, 400);
  t.equal(notObject.json().error.code, 'invalid_json');

  const empty = await raw(h.origin, 'POST', '/v1/chat/completions', { headers: auth });
  t.equal(empty.status, 400, 'no body → 400');

  // Bad JSON with a bad key: auth (401) comes before the body (400).
  const order = await raw(h.origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: 'Bearer sl-nope', 'content-type': 'application/json' },
    body: '{oops',
  });
  t.equal(order.status, 401);

  const ok = await raw(h.origin, 'POST', '/v1/chat/completions', { headers: auth, body: chatBody() });
  t.equal(ok.status, 200, 'the gateway still serves after every bad input');
  t.equal(ok.json().object, 'chat.completion');
});

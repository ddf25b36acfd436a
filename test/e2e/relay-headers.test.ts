import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startHarness } from '../helpers/harness.js';

const CHUNK = (content: string) =>
  `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gamma-5.4","choices":[{"index":0,"delta":{"content":"${content}"},"finish_reason":null}],"usage":null}\n\n`;

t.test('stream headers wait to share a write with the first frames, but not for long', async (t) => {
  // An upstream that answers its headers at once and its first event only after 400 ms.
  const upstream = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.flushHeaders();
    setTimeout(() => {
      res.write(CHUNK('late'));
      res.write(
        'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gamma-5.4","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}\n\n',
      );
      res.end(
        'data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"gamma-5.4","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}\n\ndata: [DONE]\n\n',
      );
    }, 400);
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  t.teardown(() => {
    upstream.closeAllConnections();
    upstream.close();
  });
  const h = await startHarness(t, { env: { GAMMA_BASE_URL: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` } });
  const { key } = await h.createKey();

  const started = performance.now();
  const res = await fetch(`${h.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gamma-5.4', stream: true, messages: [{ role: 'user', content: 'x' }] }),
  });
  const headersAfter = performance.now() - started;
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
  t.ok(headersAfter < 300, `the caller has the headers after ${Math.round(headersAfter)} ms, long before the first event (400 ms)`);
  const body = await res.text();
  t.ok(performance.now() - started >= 350, 'the events themselves came when the upstream sent them');
  t.match(body, /"content":"late"/);
  t.match(body, /data: \[DONE\]\n\n$/);
});

import t from 'tap';
import { startHarness } from '../helpers/harness.js';

/**
 * A key a caller types where a path or a model name goes is not written to the log, echoed in
 * an error body or kept in full: the gateway's own key shape (`sl-…`) and other vendors' are
 * redacted there, and the echoed text is cut (docs/security.md).
 */

t.test('a key typed into a path or a model name is neither logged nor echoed', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };
  const asks: Array<[string, string, string | undefined]> = [
    ['POST', `/v1/${key}`, '{}'],
    ['GET', `/v1/models/${key}`, undefined],
    ['POST', '/v1/chat/completions', JSON.stringify({ model: key, messages: [{ role: 'user', content: 'Hi' }] })],
    ['POST', '/v1/messages', JSON.stringify({ model: key, max_tokens: 10, messages: [{ role: 'user', content: 'Hi' }] })],
  ];
  for (const [method, path, body] of asks) {
    const res = await fetch(`${h.origin}${path}`, { method, headers: auth, ...(body ? { body } : {}) });
    const text = await res.text();
    t.equal(res.status, 404, `${method} ${path.replace(key, 'sl-…')}`);
    t.notOk(text.includes(key.slice(3)), 'the key is not in the error body');
    t.match(text, '[redacted]', 'its place is marked');
  }
  const long = (await (await fetch(`${h.origin}/v1/models/${'m'.repeat(5000)}`)).json()) as { error: { message: string } };
  t.ok(long.error.message.length < 400, `a long name is cut in the body (${long.error.message.length} characters)`);
  await new Promise((resolve) => setTimeout(resolve, 300));
  const leaked = h.logs.filter((line) => line.includes(key.slice(3)));
  t.same(leaked, [], 'no log line holds the key');
  t.ok(
    h.logs.some((line) => line.includes('/v1/[redacted]')),
    'the logged path says where it was',
  );
});

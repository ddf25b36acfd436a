import { request } from 'node:http';
import t from 'tap';
import { BODY_BUDGET_WAIT_MS } from '../../src/http/body-reader.js';
import { startHarness, type Harness } from '../helpers/harness.js';

/**
 * The bytes the request bodies of calls in progress hold together are bounded
 * (server.max_body_bytes_held): a body that finds no room within BODY_BUDGET_WAIT_MS is a 503
 * in the envelope of the format called, with Retry-After; one that finds room in time is served;
 * the room comes back when a call ends. Here the bound is 1,000,000 bytes, and a slow upstream
 * holds a call of 520,000 bytes while others arrive.
 */

const HELD = 1_000_000;
const BIG = 520_000;

/** A chat body of exactly `bytes` bytes whose upstream answer takes `delayMs`. */
function chatOf(bytes: number, delayMs: number): string {
  const head = `{"model":"gamma-5.4","max_tokens":4,"messages":[{"role":"user","content":"[[sim:delay_ms=${delayMs}]] `;
  const tail = '"}]}';
  return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
}

const messagesOf = (bytes: number): string => {
  const head = '{"model":"gamma-5.4","max_tokens":4,"messages":[{"role":"user","content":"';
  const tail = '"}]}';
  return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
};

async function post(
  h: Harness,
  key: string,
  path: string,
  body: string,
): Promise<{ status: number; json: Record<string, unknown>; headers: Headers; ms: number }> {
  const started = Date.now();
  const res = await fetch(`${h.origin}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers, ms: Date.now() - started };
}

/** The same body sent chunked (no Content-Length): counted once read. */
function postChunked(h: Harness, key: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${h.origin}/v1/chat/completions`,
      { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    for (let at = 0; at < body.length; at += 64 * 1024) req.write(body.slice(at, at + 64 * 1024));
    req.end();
  });
}

/** Resolves once the gamma simulator has received `count` requests (the held call is past admission). */
async function upstreamReached(h: Harness, count: number): Promise<void> {
  for (let waited = 0; h.gamma.requests.length < count; waited += 20) {
    if (waited > 10_000) throw new Error('the held call never reached the upstream');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

t.test('bodies of calls in progress are bounded together: 503 beyond, in each format’s envelope; room comes back', async (t) => {
  const h = await startHarness(t, { env: { GATEWAY_MAX_BODY_BYTES: '600000', GATEWAY_MAX_BODY_BYTES_HELD: String(HELD) } });
  const { key } = await h.createKey();

  const holding = post(h, key, '/v1/chat/completions', chatOf(BIG, 4 * BODY_BUDGET_WAIT_MS + 2_000));
  await upstreamReached(h, 1);

  const small = await post(h, key, '/v1/chat/completions', chatOf(2_000, 0));
  t.equal(small.status, 200, 'a body that fits beside the held one is served');

  const refused = await post(h, key, '/v1/chat/completions', chatOf(BIG, 0));
  t.equal(refused.status, 503, 'a body that does not fit is refused');
  t.ok(refused.ms >= BODY_BUDGET_WAIT_MS - 100, `after waiting for room (${refused.ms} ms)`);
  t.equal(refused.headers.get('retry-after'), '1');
  t.match(refused.json, { error: { type: 'unavailable', code: 'service_unavailable', message: /request bodies[\s\S]*server\.max_body_bytes_held/ } });

  const messages = await post(h, key, '/v1/messages', messagesOf(BIG));
  t.equal(messages.status, 503);
  t.match(messages.json, { type: 'error', error: { type: 'overloaded_error', code: 'service_unavailable' } }, 'the Messages envelope');

  const chunked = await postChunked(h, key, chatOf(BIG, 0));
  t.equal(chunked.status, 503, 'a chunked body is counted once read');
  t.equal(h.gamma.requests.length, 2, 'none of the refused calls reached the upstream');

  t.equal((await holding).status, 200, 'the held call ends');
  t.equal((await post(h, key, '/v1/chat/completions', chatOf(BIG, 0))).status, 200, 'its room came back');
  t.equal((await postChunked(h, key, chatOf(BIG, 0))).status, 200, 'a chunked body’s too');
});

t.test('a body that waits for room is served when a call ends within the wait', async (t) => {
  const h = await startHarness(t, { env: { GATEWAY_MAX_BODY_BYTES: '600000', GATEWAY_MAX_BODY_BYTES_HELD: String(HELD) } });
  const { key } = await h.createKey();
  const holding = post(h, key, '/v1/chat/completions', chatOf(BIG, BODY_BUDGET_WAIT_MS / 4));
  await upstreamReached(h, 1);
  const waiting = await post(h, key, '/v1/chat/completions', chatOf(BIG, 0));
  t.equal(waiting.status, 200, `served after ${waiting.ms} ms`);
  t.equal((await holding).status, 200);
});

t.test('a bound on held bodies below one body is refused at boot', async (t) => {
  await t.rejects(startHarness(t, { env: { GATEWAY_MAX_BODY_BYTES: '600000', GATEWAY_MAX_BODY_BYTES_HELD: '500000' } }), {
    message: /server\.max_body_bytes_held \(500000\) must be at least server\.max_body_bytes \(600000\)/,
  });
});

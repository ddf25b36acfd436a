import t from 'tap';
import { gatewayOnQueuedGamma, jsonAnswer, type Answer } from '../helpers/queued-upstream.js';

/**
 * A gamma answer that is not whole is an upstream error, never a success: a stream closed
 * cleanly before every choice finished (with or without `[DONE]`) or with an empty body, an
 * answer to a stream request that is not an event stream (an HTML page, a whole JSON reply), a
 * non-streamed 200 that is JSON but not the endpoint's shape. The caller sees an error event or a
 * 502, and the ledger row says `upstream_error`. The gamma upstream is a small
 * server of the test's own that answers each request with the next queued answer.
 */

const chunk = (choices: unknown[], usage: unknown = null): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-u', object: 'chat.completion.chunk', created: 1, model: 'gamma-5.4', choices, usage })}\n\n`;
const delta = (index: number, content: string, finish: string | null = null): unknown => ({ index, delta: { content }, finish_reason: finish });
const USAGE = chunk([], { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 });

const sse =
  (body: string): Answer =>
  (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(body);
  };
/** A JSON text, parsed; anything else as it is (so a failed expectation shows what came). */
const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
};

t.test('gamma answers that are not whole: an error for the caller, upstream_error in the ledger', async (t) => {
  const { upstream, h, id, key, db } = await gatewayOnQueuedGamma(t);

  const call = async (path: string, body: Record<string, unknown>): Promise<{ status: number; text: string }> => {
    const res = await fetch(`${h.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gamma-5.4', ...body }),
    });
    return { status: res.status, text: await res.text() };
  };
  const chat = { messages: [{ role: 'user', content: 'Hi' }] };
  const whole = chunk([delta(0, 'Hi')]) + chunk([delta(0, '', 'stop')]) + USAGE + 'data: [DONE]\n\n';

  // Controls: whole answers pass, so the refusals below are about the answers, not the server.
  upstream.answers.push(sse(whole));
  const ok = await call('/chat/completions', { ...chat, stream: true });
  t.equal(ok.status, 200);
  t.match(ok.text, /"finish_reason":"stop"[\s\S]*data: \[DONE\]\n\n$/, 'a whole stream is relayed whole');
  upstream.answers.push(
    jsonAnswer({
      id: 'chatcmpl-u',
      object: 'chat.completion',
      model: 'gamma-5.4',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
      usage: { prompt_tokens: 3, completion_tokens: 1 },
    }),
  );
  t.equal((await call('/chat/completions', chat)).status, 200, 'a whole reply is relayed');

  const streams: Array<[string, Answer, RegExp, Record<string, unknown>?]> = [
    ['closed cleanly without a finish reason or [DONE]', sse(chunk([delta(0, 'Hi')]) + chunk([delta(0, ' there')])), /before choice 0 finished/],
    ['closed with [DONE] but no finish reason', sse(chunk([delta(0, 'Hi')]) + USAGE + 'data: [DONE]\n\n'), /before choice 0 finished/],
    [
      'n = 2, one choice never finished',
      sse(chunk([delta(0, 'A', 'stop')]) + chunk([delta(1, 'B')]) + USAGE + 'data: [DONE]\n\n'),
      /before choice 1 finished/,
      { n: 2 },
    ],
    ['an empty 200', sse(''), /empty body or one that is not an event stream/],
  ];
  for (const [what, answer, reason, extra] of streams) {
    upstream.answers.push(answer);
    const res = await call('/chat/completions', { ...chat, stream: true, ...extra });
    t.equal(res.status, 200, `${what}: the stream had begun`);
    const last = res.text.trimEnd().split('\n\n').at(-1) ?? '';
    t.notMatch(res.text, 'data: [DONE]', `${what}: no [DONE]`);
    t.match(
      parsed(last.replace(/^data: /, '')),
      { error: { type: 'upstream_error', code: 'bad_gateway', message: reason } },
      `${what}: ends with our error event`,
    );
  }

  // A 2xx of another media type is refused before the caller's 200: a 502 in the caller's envelope.
  // A page that never ends is not read to its end: its connection is dropped.
  let endlessClosed: () => void = () => undefined;
  const endlessDropped = new Promise<void>((resolve) => (endlessClosed = resolve));
  const notStreams: Array<[string, Answer, RegExp]> = [
    [
      'an HTML page',
      (res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end('<!doctype html><html><body><h1>Service temporarily unavailable</h1></body></html>');
      },
      /^The gamma upstream answered a stream request with text\/html, not an event stream\.$/,
    ],
    [
      'a whole JSON reply',
      jsonAnswer({
        id: 'chatcmpl-u',
        object: 'chat.completion',
        model: 'gamma-5.4',
        choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
      }),
      /^The gamma upstream answered a stream request with application\/json, not an event stream\.$/,
    ],
    [
      'an HTML page that never ends',
      (res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.write('<!doctype html><html><body>');
        res.on('close', endlessClosed);
      },
      /^The gamma upstream answered a stream request with text\/html, not an event stream\.$/,
    ],
  ];
  for (const [what, answer, reason] of notStreams) {
    upstream.answers.push(answer);
    const res = await call('/chat/completions', { ...chat, stream: true });
    t.equal(res.status, 502, `${what}: 502, no stream begun`);
    t.match(parsed(res.text), { error: { type: 'upstream_error', code: 'bad_gateway', message: reason } }, `${what}: our envelope says why`);
  }
  const dropped = await Promise.race([endlessDropped.then(() => true), new Promise<boolean>((resolve) => setTimeout(resolve, 2000, false))]);
  t.ok(dropped, 'the endless page: the gateway dropped its connection');

  const bodies: Array<[string, string, Record<string, unknown>, unknown, RegExp]> = [
    ['chat without choices', '/chat/completions', chat, { id: 'x', object: 'chat.completion', model: 'gamma-5.4' }, /not a chat completion \(no choices\)/],
    ['chat with an empty choices list', '/chat/completions', chat, { object: 'chat.completion', choices: [] }, /not a chat completion/],
    ['an error object with status 200', '/chat/completions', chat, { error: { message: 'quota' } }, /not a chat completion/],
    ['legacy completion without choices', '/completions', { prompt: 'Hi' }, { id: 'cmpl-x', object: 'text_completion' }, /not a completion \(no choices\)/],
    ['embeddings without data', '/embeddings', { input: 'Hi' }, { object: 'list', model: 'gamma-embedding-3-small' }, /not an embeddings list \(no data\)/],
  ];
  for (const [what, path, body, reply, reason] of bodies) {
    upstream.answers.push(jsonAnswer(reply));
    const res = await call(path, body);
    t.equal(res.status, 502, `${what}: 502`);
    t.match(parsed(res.text), { error: { type: 'upstream_error', code: 'bad_gateway', message: reason } }, what);
  }

  const rows = db.rows(id);
  const failures = [...streams, ...notStreams, ...bodies];
  t.equal(rows.length, 2 + failures.length, 'every call is in the ledger');
  t.same(
    rows.slice(0, 2).map((row) => row.outcome),
    ['ok', 'ok'],
    'the controls are ok',
  );
  for (const [index, row] of rows.slice(2).entries()) {
    t.equal(row.outcome, 'upstream_error', `${failures[index]?.[0]}: upstream_error, not ok`);
  }
  t.same(
    rows.slice(2, 2 + streams.length).map((row) => row.status),
    streams.map(() => 200),
    'streams keep the 200 they began with',
  );
  t.same(
    rows.slice(2 + streams.length).map((row) => row.status),
    [...notStreams, ...bodies].map(() => 502),
  );
  t.same(
    rows.slice(2 + streams.length, 2 + streams.length + notStreams.length).map((row) => row.charged_nano),
    notStreams.map(() => 0),
    'an answer that is no stream bills nothing',
  );
  const metrics = await (await fetch(`${h.origin}/metrics`)).text();
  t.match(metrics, /gateway_upstream_errors_total\{family="gamma",code="not_a_stream",deployment="default"\} 3/, 'counted under its own code');

  // Through another format, the same 502 in that format's envelope.
  upstream.answers.push(jsonAnswer({ error: { message: 'streaming is off' } }));
  const messages = await call('/messages', { max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'Hi' }] });
  t.equal(messages.status, 502);
  t.match(parsed(messages.text), { type: 'error', error: { message: /application\/json, not an event stream/ } }, 'the Messages shape');
});

import t from 'tap';
import { gatewayOnQueuedGamma, jsonAnswer, sseAnswer } from '../helpers/queued-upstream.js';

/**
 * The real gamma vendor answers a model asked by its short name with a dated one
 * (`gamma-5.4-2026-03-05`). Whatever the ingress, whole or streamed, with or without the usage
 * chunk, every reply and every chunk the caller reads names the canonical ID.
 */

const DATED = 'gamma-5.4-2026-03-05';
const USAGE = { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 };
const envelope = (object: string, usage = true): Record<string, unknown> => ({
  id: 'chatcmpl-u',
  object,
  created: 1,
  model: DATED,
  ...(usage ? { usage: null } : {}),
});
/** A whole chat stream as the vendor sends it when asked for usage. */
const chatStream = sseAnswer([
  { ...envelope('chat.completion.chunk'), choices: [{ index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null }] },
  { ...envelope('chat.completion.chunk'), choices: [{ index: 0, delta: { content: 'Hi' }, logprobs: null, finish_reason: null }] },
  { ...envelope('chat.completion.chunk'), choices: [{ index: 0, delta: { content: ' there' }, logprobs: null, finish_reason: null }] },
  { ...envelope('chat.completion.chunk'), choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] },
  { ...envelope('chat.completion.chunk'), choices: [], usage: USAGE },
]);
const legacyStream = sseAnswer([
  { ...envelope('text_completion'), choices: [{ text: 'Hi', index: 0, logprobs: null, finish_reason: null }] },
  { ...envelope('text_completion'), choices: [{ text: '', index: 0, logprobs: null, finish_reason: 'stop' }] },
  { ...envelope('text_completion'), choices: [], usage: USAGE },
]);

/** The JSON of every `data:` frame but `[DONE]`. */
const dataFrames = (text: string): Array<Record<string, unknown>> =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)) as Record<string, unknown>);

t.test('a dated upstream model name never reaches the caller', async (t) => {
  const { upstream, h, key } = await gatewayOnQueuedGamma(t);
  const call = async (path: string, body: Record<string, unknown>): Promise<string> => {
    const res = await fetch(`${h.baseURL}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gamma-5.4', ...body }),
    });
    t.equal(res.status, 200, `${path} answered`);
    return res.text();
  };
  const chat = { messages: [{ role: 'user', content: 'Hi' }] };

  upstream.answers.push(
    jsonAnswer({
      ...envelope('chat.completion', false),
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
      usage: USAGE,
    }),
  );
  t.equal(JSON.parse(await call('/chat/completions', chat)).model, 'gamma-5.4', 'a whole reply (the control)');

  for (const includeUsage of [false, true]) {
    upstream.answers.push(chatStream);
    const frames = dataFrames(await call('/chat/completions', { ...chat, stream: true, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) }));
    t.equal(frames.length, includeUsage ? 5 : 4, `chat stream, include_usage ${includeUsage}: every chunk relayed`);
    t.same(
      frames.map((frame) => frame['model']),
      frames.map(() => 'gamma-5.4'),
      `chat stream, include_usage ${includeUsage}: every chunk names the canonical ID`,
    );
    t.same(
      frames.map((frame) => frame['id']),
      frames.map(() => 'chatcmpl-u'),
      "and is otherwise the upstream's",
    );
  }

  upstream.answers.push(legacyStream);
  const legacy = dataFrames(await call('/completions', { prompt: 'Hi', stream: true, stream_options: { include_usage: true } }));
  t.same(
    legacy.map((frame) => frame['model']),
    ['gamma-5.4', 'gamma-5.4', 'gamma-5.4'],
    'a legacy completion stream too',
  );

  upstream.answers.push(chatStream);
  const responses = dataFrames(await call('/responses', { input: 'Hi', stream: true }));
  const named = responses.map((event) => (event['response'] as Record<string, unknown> | undefined)?.['model']).filter((model) => model !== undefined);
  t.ok(named.length >= 2, 'Responses events that carry the response');
  t.same(
    named,
    named.map(() => 'gamma-5.4'),
    'name the canonical ID',
  );

  upstream.answers.push(chatStream);
  const messages = dataFrames(await call('/messages', { max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }], stream: true }));
  t.match(messages[0], { type: 'message_start', message: { model: 'gamma-5.4' } }, 'the Messages stream names the canonical ID');
  t.notMatch(JSON.stringify([responses, messages]), DATED, 'nowhere the dated name');
});

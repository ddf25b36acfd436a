import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { jsonAnswer, queuedUpstream, type Answer } from '../helpers/queued-upstream.js';

/**
 * Alpha JSON mode (a forced `json_response` tool), streamed, says what the whole reply says:
 * text the model writes before the JSON tool is dropped, so the content is the JSON alone; text
 * beside one of the caller's tools (no JSON tool) is kept, as in the whole reply. The alpha
 * upstream is a small server of the test's own that answers each request with the next queued
 * answer, the same message whole and streamed.
 */

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

const message = (blocks: Block[]): Answer =>
  jsonAnswer({
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: 'alpha-haiku-4.5',
    content: blocks,
    stop_reason: 'tool_use',
    stop_sequence: null,
    usage: { input_tokens: 12, output_tokens: 9 },
  });

/** The same message as alpha's event stream, each block's content in two deltas. */
const streamed =
  (blocks: Block[]): Answer =>
  (res) => {
    const event = (data: Record<string, unknown>): string => `event: ${String(data['type'])}\ndata: ${JSON.stringify(data)}\n\n`;
    let body = event({
      type: 'message_start',
      message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'alpha-haiku-4.5', content: [], usage: { input_tokens: 12, output_tokens: 1 } },
    });
    blocks.forEach((block, index) => {
      const text = block.type === 'text' ? block.text : JSON.stringify(block.input);
      const half = Math.ceil(text.length / 2);
      const start = block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
      body += event({ type: 'content_block_start', index, content_block: start });
      for (const part of [text.slice(0, half), text.slice(half)]) {
        const delta = block.type === 'text' ? { type: 'text_delta', text: part } : { type: 'input_json_delta', partial_json: part };
        body += event({ type: 'content_block_delta', index, delta });
      }
      body += event({ type: 'content_block_stop', index });
    });
    body += event({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 9 } });
    body += event({ type: 'message_stop' });
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(body);
  };

t.test('JSON mode streamed: the content is what the whole reply holds', async (t) => {
  const upstream = await queuedUpstream(t);
  const h = await startHarness(t, { env: { ALPHA_BASE_URL: upstream.origin, GATEWAY_RETRY_MAX: '0' } });
  const client = h.client((await h.createKey()).key);
  const ask = { model: 'alpha-haiku-4.5', messages: [{ role: 'user' as const, content: 'Give me a.' }], response_format: { type: 'json_object' as const } };
  const tools = [{ type: 'function' as const, function: { name: 'lookup', parameters: { type: 'object' } } }];

  const cases: Array<[string, Block[], Record<string, unknown>, string]> = [
    [
      'text, then the JSON tool',
      [
        { type: 'text', text: 'Here you go: ' },
        { type: 'tool_use', id: 'toolu_1', name: 'json_response', input: { a: 1 } },
      ],
      {},
      '{"a":1}',
    ],
    [
      'the JSON tool, then text',
      [
        { type: 'tool_use', id: 'toolu_1', name: 'json_response', input: { a: 1 } },
        { type: 'text', text: 'Done.' },
      ],
      {},
      '{"a":1}',
    ],
    [
      "text beside a caller's tool, no JSON tool",
      [
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'toolu_2', name: 'lookup', input: { q: 'a' } },
      ],
      { tools },
      'Let me look.',
    ],
  ];
  for (const [what, blocks, extra, content] of cases) {
    upstream.answers.push(message(blocks));
    const whole = await client.chat.completions.create({ ...ask, ...extra });
    t.equal(whole.choices[0]?.message.content, content, `${what}: the whole reply`);

    upstream.answers.push(streamed(blocks));
    const stream = await client.chat.completions.create({ ...ask, ...extra, stream: true });
    const deltas: string[] = [];
    let finish: string | null = null;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) deltas.push(choice.delta.content);
      finish = choice?.finish_reason ?? finish;
    }
    t.equal(deltas.join(''), content, `${what}: the stream's content deltas`);
    t.ok(finish, `${what}: the stream finished`);
  }
});

import t from 'tap';
import { raw, startHarness, UPSTREAM_CREDENTIALS, type Harness } from '../helpers/harness.js';
import { otlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../helpers/otlp-receiver.js';

/**
 * What the telemetry plugin exports of an answer (docs/telemetry.md#what-was-answered): the id
 * and the finish reasons the caller got, for every format on every family, streamed or not; and
 * the message content, only when the operator opted in, bounded.
 */

const MODELS = { alpha: 'alpha-sonnet-4.6', beta: 'beta-3-flash', gamma: 'gamma-5.4' } as const;
const FAMILIES = ['alpha', 'beta', 'gamma'] as const;
type Family = (typeof FAMILIES)[number];
type Format = 'chat' | 'responses' | 'messages' | 'gemini';
const PROMPT = 'Tell me about the lighthouse keeper';
const SYSTEM = 'You answer like a harbour pilot';
const PARAMETERS = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };

const otelEnv = (collector: OtlpReceiver, extra: Record<string, string> = {}): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: collector.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_BSP_SCHEDULE_DELAY: '50',
  OTEL_METRICS_EXPORTER: 'none',
  ...extra,
});

/** The request of `format` (with a system instruction; asking for a tool call when `tool`), and its path. */
function request(format: Format, model: string, stream: boolean, tool: boolean, prompt: string): { path: string; body: object } {
  switch (format) {
    case 'chat':
      return {
        path: '/v1/chat/completions',
        body: {
          model,
          stream,
          messages: [
            { role: 'system', content: SYSTEM },
            { role: 'user', content: prompt },
          ],
          ...(tool ? { tools: [{ type: 'function', function: { name: 'get_weather', parameters: PARAMETERS } }], tool_choice: 'required' } : {}),
        },
      };
    case 'responses':
      return {
        path: '/v1/responses',
        body: {
          model,
          stream,
          input: prompt,
          ...(tool ? { tools: [{ type: 'function', name: 'get_weather', parameters: PARAMETERS }], tool_choice: 'required' } : {}),
        },
      };
    case 'messages':
      return {
        path: '/v1/messages',
        body: {
          model,
          stream,
          max_tokens: 4000,
          system: SYSTEM,
          messages: [{ role: 'user', content: prompt }],
          ...(tool ? { tools: [{ name: 'get_weather', input_schema: PARAMETERS }], tool_choice: { type: 'any' } } : {}),
        },
      };
    case 'gemini':
      return {
        path: `/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        body: {
          contents: [{ role: 'user', parts: [{ text: prompt }] }],
          ...(tool
            ? { tools: [{ functionDeclarations: [{ name: 'get_weather', parameters: PARAMETERS }] }], toolConfig: { functionCallingConfig: { mode: 'ANY' } } }
            : {}),
        },
      };
  }
}

async function ask(h: Harness, key: string, format: Format, family: Family, stream: boolean, tool = false, prompt = PROMPT): Promise<string> {
  const { path, body } = request(format, MODELS[family], stream, tool, prompt);
  const res = await raw(h.origin, 'POST', path, {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${format} ${family}: ${res.status} ${res.text}`);
  return res.text;
}

/** The JSON data of each SSE event of a streamed answer. */
const events = (text: string): any[] =>
  text
    .split('\n')
    .filter((line) => line.startsWith('data: ') && line !== 'data: [DONE]')
    .map((line) => JSON.parse(line.slice(6)));

/** The Responses API states no finish reason: the conventions' words for its status (docs/telemetry.md). */
function responsesReason(response: any): string {
  if (response.status === 'incomplete') return response.incomplete_details.reason === 'max_output_tokens' ? 'length' : response.incomplete_details.reason;
  return response.output.some((item: any) => item.type === 'function_call') ? 'tool_calls' : 'stop';
}

/** The id, finish reasons and text the caller read in an answer. */
function answered(format: Format, stream: boolean, text: string): { id: string; reasons: string[]; text: string } {
  if (!stream) {
    const body = JSON.parse(text);
    switch (format) {
      case 'chat':
        return {
          id: body.id,
          reasons: body.choices.map((c: any) => c.finish_reason),
          text: (body.choices[0].message.content ?? '') + (body.choices[0].message.refusal ?? ''),
        };
      case 'responses':
        return { id: body.id, reasons: [responsesReason(body)], text: '' };
      case 'messages':
        return {
          id: body.id,
          reasons: [body.stop_reason],
          text: body.content
            .filter((b: any) => b.type === 'text')
            .map((b: any) => b.text)
            .join(''),
        };
      case 'gemini':
        return { id: body.responseId, reasons: body.candidates.map((c: any) => c.finishReason), text: '' };
    }
  }
  const all = events(text);
  switch (format) {
    case 'chat': {
      const choices = all.flatMap((e) => e.choices);
      return {
        id: all[0].id,
        reasons: choices.filter((c) => c.finish_reason).map((c) => c.finish_reason),
        text: choices.map((c) => (c.delta.content ?? '') + (c.delta.refusal ?? '')).join(''),
      };
    }
    case 'responses': {
      const last = all.find((e) => e.type === 'response.completed' || e.type === 'response.incomplete');
      return { id: last.response.id, reasons: [responsesReason(last.response)], text: '' };
    }
    case 'messages':
      return {
        id: all.find((e) => e.type === 'message_start').message.id,
        reasons: all.filter((e) => e.type === 'message_delta').map((e) => e.delta.stop_reason),
        text: all
          .filter((e) => e.type === 'content_block_delta' && e.delta.type === 'text_delta')
          .map((e) => e.delta.text)
          .join(''),
      };
    case 'gemini': {
      const candidates = all.flatMap((e) => e.candidates);
      return { id: all[0].responseId, reasons: candidates.filter((c) => c.finishReason).map((c) => c.finishReason), text: '' };
    }
  }
}

/** The reasons expected of each format: a text answer, and a tool call. */
const EXPECTED: Record<Format, { text: string; tool: string }> = {
  chat: { text: 'stop', tool: 'tool_calls' },
  responses: { text: 'stop', tool: 'tool_calls' },
  messages: { text: 'end_turn', tool: 'tool_use' },
  gemini: { text: 'STOP', tool: 'STOP' },
};

/** The server span of each call in order, with the answering client span of its trace. */
async function spansOf(collector: OtlpReceiver, calls: number): Promise<Array<{ server: ReceivedSpan; client: ReceivedSpan }>> {
  const spans = await collector.until('every span', () => {
    const all = collector.spans();
    return all.filter((span) => span.kind === 2).length >= calls && all.filter((span) => span.kind === 3).length >= calls && all;
  });
  return spans
    .filter((span) => span.kind === 2)
    .map((server) => ({ server, client: spans.find((span) => span.kind === 3 && span.traceId === server.traceId) as ReceivedSpan }));
}

t.test("gen_ai.response.id and finish_reasons: the caller's, for every format on every family, streamed or not, text or tool call", async (t) => {
  const collector = await otlpReceiver(t);
  const h = await startHarness(t, { env: otelEnv(collector) });
  const { key } = await h.createKey();
  const cases: Array<{ format: Format; family: Family; stream: boolean; tool: boolean; got: ReturnType<typeof answered> }> = [];
  for (const format of ['chat', 'responses', 'messages', 'gemini'] as const) {
    for (const family of FAMILIES) {
      for (const stream of [false, true]) {
        for (const tool of [false, true]) {
          cases.push({ format, family, stream, tool, got: answered(format, stream, await ask(h, key, format, family, stream, tool)) });
        }
      }
    }
  }
  const spans = await spansOf(collector, cases.length);
  cases.forEach(({ format, family, stream, tool, got }, index) => {
    const what = `${format} ${family} ${stream ? 'streamed' : 'whole'}${tool ? ' tool call' : ''}`;
    const { server, client } = spans[index] as { server: ReceivedSpan; client: ReceivedSpan };
    t.same(got.reasons, [EXPECTED[format][tool ? 'tool' : 'text']], `${what}: the caller got the expected reason`);
    t.ok(typeof got.id === 'string' && got.id !== '', `${what}: the caller got an id`);
    for (const [name, span] of [
      ['client', client],
      ['server', server],
    ] as const) {
      t.equal(span.attributes['gen_ai.response.id'], got.id, `${what}: the ${name} span's id is the caller's`);
      t.same(span.attributes['gen_ai.response.finish_reasons'], got.reasons, `${what}: the ${name} span's finish reasons are the caller's`);
    }
    t.equal(client.attributes['gen_ai.input.messages'], undefined, `${what}: no content without the opt-in`);
    t.equal(client.attributes['gen_ai.output.messages'], undefined, `${what}: no output without the opt-in`);
  });
});

t.test('several choices: one finish reason per choice, in order', async (t) => {
  const collector = await otlpReceiver(t);
  const h = await startHarness(t, { env: otelEnv(collector) });
  const { key } = await h.createKey();
  const res = await raw(h.origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODELS.gamma, n: 2, stream: true, messages: [{ role: 'user', content: PROMPT }] }),
  });
  const got = answered('chat', true, res.text);
  t.same(got.reasons, ['stop', 'stop'], 'two choices, each finished');
  const [{ client } = { client: undefined }] = await spansOf(collector, 1);
  t.same(client?.attributes['gen_ai.response.finish_reasons'], ['stop', 'stop'], 'both reasons');
});

t.test('message content, opted in: the system instructions, the input and the output as the conventions write them', async (t) => {
  const collector = await otlpReceiver(t);
  const h = await startHarness(t, { env: otelEnv(collector, { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }) });
  const { key } = await h.createKey();
  const cases: Array<{ format: Format; family: Family; stream: boolean; got: ReturnType<typeof answered> }> = [];
  for (const format of ['chat', 'messages'] as const) {
    for (const family of FAMILIES) {
      for (const stream of [false, true]) cases.push({ format, family, stream, got: answered(format, stream, await ask(h, key, format, family, stream)) });
    }
  }
  const spans = await spansOf(collector, cases.length);
  cases.forEach(({ format, family, stream, got }, index) => {
    const what = `${format} ${family} ${stream ? 'streamed' : 'whole'}`;
    const { client, server } = spans[index] as { server: ReceivedSpan; client: ReceivedSpan };
    t.ok(got.text.length > 0, `${what}: the caller got text`);
    t.same(JSON.parse(String(client.attributes['gen_ai.system_instructions'])), [{ type: 'text', content: SYSTEM }], `${what}: the system instructions`);
    t.same(
      JSON.parse(String(client.attributes['gen_ai.input.messages'])),
      [{ role: 'user', parts: [{ type: 'text', content: PROMPT }] }],
      `${what}: the input`,
    );
    t.same(
      JSON.parse(String(client.attributes['gen_ai.output.messages'])),
      [{ role: 'assistant', parts: [{ type: 'text', content: got.text }], finish_reason: got.reasons[0] }],
      `${what}: the output is the text the caller got`,
    );
    t.equal(server.attributes['gen_ai.input.messages'], undefined, `${what}: content only on the inference (client) span`);
  });
  const exported = collector.exports.map((e) => e.body.toString('utf8')).join('\n');
  for (const [what, secret] of [['the key', key], ...UPSTREAM_CREDENTIALS] as const) {
    t.notOk(exported.includes(secret), `${what} is nowhere in the export, content on`);
  }
});

t.test('message content is bounded: each attribute at most 16 KiB of valid JSON, cut text ending with …', async (t) => {
  const collector = await otlpReceiver(t);
  const h = await startHarness(t, { env: otelEnv(collector, { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }) });
  const { key } = await h.createKey();
  // A prompt of ~60 KB (multi-byte words too), and a reply of 5000 pieces.
  const long = `${'lighthouse keeper ünïcödé '.repeat(2400)} [[sim:tokens=5000]]`;
  const cases: Array<[Format, Family, boolean]> = [
    ['chat', 'gamma', true],
    ['chat', 'alpha', false],
    ['messages', 'alpha', true],
    ['messages', 'beta', false],
  ];
  for (const [format, family, stream] of cases) await ask(h, key, format, family, stream, false, long);
  const spans = await spansOf(collector, cases.length);
  cases.forEach(([format, family, stream], index) => {
    const what = `${format} ${family} ${stream ? 'streamed' : 'whole'}`;
    const { client } = spans[index] as { server: ReceivedSpan; client: ReceivedSpan };
    for (const name of ['gen_ai.input.messages', 'gen_ai.output.messages']) {
      const value = String(client.attributes[name]);
      t.ok(Buffer.byteLength(value) <= 16 * 1024, `${what}: ${name} within 16 KiB (${Buffer.byteLength(value)} bytes)`);
      t.ok(Buffer.byteLength(value) > 15 * 1024, `${what}: ${name} uses its room`);
      const [message] = JSON.parse(value);
      t.ok(String(message.parts[0].content).endsWith('…'), `${what}: ${name}'s cut text ends with …`);
    }
  });
});

t.test('content of a call passed through: its input read for the report announces nothing the passthrough honoured', async (t) => {
  const collector = await otlpReceiver(t);
  const h = await startHarness(t, { env: otelEnv(collector, { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }) });
  const { key } = await h.createKey();
  // A participant's name: gamma takes it as sent; a translated request would leave it out (`x-gateway-adjusted`).
  const res = await raw(h.origin, 'POST', '/v1/chat/completions', {
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODELS.gamma, messages: [{ role: 'user', name: 'ann', content: PROMPT }] }),
  });
  t.equal(res.status, 200);
  t.equal(res.headers.get('x-gateway-adjusted'), null, 'nothing announced to the caller');
  const [{ client } = { client: undefined }] = await spansOf(collector, 1);
  t.same(JSON.parse(String(client?.attributes['gen_ai.input.messages'])), [{ role: 'user', parts: [{ type: 'text', content: PROMPT }] }], 'the input');
});

t.test("content opted in: a model's refusal is the output's text, as the caller got it", async (t) => {
  const collector = await otlpReceiver(t);
  const h = await startHarness(t, { env: otelEnv(collector, { OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT: 'true' }) });
  const { key } = await h.createKey();
  const cases: Array<[Format, Family, boolean]> = [
    ['chat', 'alpha', false],
    ['chat', 'alpha', true],
    ['messages', 'alpha', false],
    ['messages', 'alpha', true],
  ];
  const got: Array<ReturnType<typeof answered>> = [];
  for (const [format, family, stream] of cases)
    got.push(answered(format, stream, await ask(h, key, format, family, stream, false, `${PROMPT} [[sim:refusal=1]]`)));
  const spans = await spansOf(collector, cases.length);
  cases.forEach(([format, family, stream], index) => {
    const what = `${format} ${family} ${stream ? 'streamed' : 'whole'}`;
    const answer = got[index] as ReturnType<typeof answered>;
    t.ok(answer.text.length > 0 && answer.reasons[0] === (format === 'chat' ? 'content_filter' : 'refusal'), `${what}: the caller got the refusal`);
    const [message] = JSON.parse(String(spans[index]?.client.attributes['gen_ai.output.messages']));
    t.same(message.parts, [{ type: 'text', content: answer.text }], `${what}: the output is the refusal's text`);
    t.equal(message.finish_reason, answer.reasons[0], `${what}: with the caller's finish reason`);
  });
});

import Anthropic from '@anthropic-ai/sdk';
import t, { type Test } from 'tap';
import { dig } from '../helpers/dig.js';
import { startHarness, type Harness } from '../helpers/harness.js';

/**
 * Structured outputs through the gateway on every family, as the AI SDK, the Agents SDK and
 * LangChain send them (`strict: true` everywhere, zod's schema), with the official client's own
 * parse helpers: chat `response_format` and strict tools, Responses `text.format` and strict
 * function tools, whole and streamed, and the Messages format's `output_config.format` and strict
 * tools — each a 200 with the parsed object or the tool call, the vendor asked natively. Alpha's
 * refusal comes back as each format's refusal.
 */

/** Bodies as the tests walk them. */
type Json = Record<string, any>;

const MODELS = { alpha: 'alpha-sonnet-4.6', beta: 'beta-3-flash', gamma: 'gamma-5.4' } as const;
type Family = keyof typeof MODELS;
const FAMILIES = Object.keys(MODELS) as Family[];

/** What zod gives for `z.object({city: z.string().min(1), days: z.number().int().min(1).max(7), note: z.string().nullable()})`. */
const SCHEMA = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1 },
    days: { type: 'integer', minimum: 1, maximum: 7 },
    note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  },
  required: ['city', 'days', 'note'],
  additionalProperties: false,
};
/** What the simulators answer for it (every family the same). */
const ANSWER = { city: 'sample', days: 1, note: 'sample' };
const PARAMETERS = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
const CHAT_TOOL = { type: 'function' as const, function: { name: 'get_weather', description: 'Weather of a city', parameters: PARAMETERS, strict: true } };
const RESPONSES_TOOL = { type: 'function' as const, name: 'get_weather', description: 'Weather of a city', parameters: PARAMETERS, strict: true };
const CHAT_FORMAT = { type: 'json_schema' as const, json_schema: { name: 'weather', strict: true, schema: SCHEMA } };
const TEXT_FORMAT = { type: 'json_schema' as const, name: 'weather', strict: true, schema: SCHEMA };

/** The last request the family's simulator got, parsed. */
const upstream = (h: Harness, family: Family): Json => JSON.parse(h[family].requests.at(-1)?.body ?? '{}') as Json;

/** The structured output reached the vendor natively: alpha `output_config.format`, beta `responseJsonSchema`, gamma `strict` as sent. */
function askedNatively(t: Test, h: Harness, family: Family, where: string): void {
  const body = upstream(h, family);
  if (family === 'alpha')
    t.match(body, { output_config: { format: { type: 'json_schema', schema: { additionalProperties: false } } } }, `${where}: alpha output_config.format`);
  if (family === 'alpha') t.equal(body['tools'], undefined, `${where}: no forced tool`);
  if (family === 'beta')
    t.match(body, { generationConfig: { responseMimeType: 'application/json', responseJsonSchema: { type: 'object' } } }, `${where}: beta responseJsonSchema`);
}

/** A strict tool reached the vendor as its strict mode: alpha `strict` on the tool, beta `VALIDATED`, gamma `strict`. */
function strictToolAsked(t: Test, h: Harness, family: Family, where: string): void {
  const body = upstream(h, family);
  if (family === 'alpha') t.match(body, { tools: [{ name: 'get_weather', strict: true, input_schema: PARAMETERS }] }, `${where}: alpha tool strict`);
  if (family === 'beta')
    t.match(
      body,
      {
        toolConfig: { functionCallingConfig: { mode: 'VALIDATED' } },
        tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: PARAMETERS }] }],
      },
      `${where}: beta VALIDATED`,
    );
  if (family === 'beta') t.notOk('strict' in (body['tools'][0].functionDeclarations[0] as Json), `${where}: beta is not sent strict`);
  if (family === 'gamma') t.match(body, { tools: [{ function: { name: 'get_weather', strict: true } }] }, `${where}: gamma strict`);
}

t.test('chat: response_format strict json_schema and strict tools, whole and streamed, on every family', async (t) => {
  const h = await startHarness(t);
  const client = h.client((await h.createKey()).key);
  for (const family of FAMILIES) {
    const model = MODELS[family];
    const messages = [{ role: 'user' as const, content: 'Weather in Oslo?' }];
    const parsed = await client.chat.completions.parse({ model, messages, response_format: CHAT_FORMAT });
    t.same(parsed.choices[0]?.message.parsed, ANSWER, `${family}: parsed`);
    askedNatively(t, h, family, family);
    const streamed = await client.chat.completions.stream({ model, messages, response_format: CHAT_FORMAT }).finalChatCompletion();
    // The client's stream helper parses only zod formats: the streamed text is parsed here.
    t.same(JSON.parse(streamed.choices[0]?.message.content ?? ''), ANSWER, `${family}: streamed, the JSON text`);
    askedNatively(t, h, family, `${family} streamed`);
    const called = await client.chat.completions.parse({ model, messages, tools: [CHAT_TOOL] });
    t.same(called.choices[0]?.message.tool_calls?.[0]?.function.parsed_arguments, { city: 'sample' }, `${family}: a strict tool call, parsed`);
    strictToolAsked(t, h, family, family);
  }
});

t.test('alpha: a JSON schema answer while the model thinks (no forced tool, so no refusal)', async (t) => {
  const h = await startHarness(t);
  const client = h.client((await h.createKey()).key);
  const parsed = await client.chat.completions.parse({
    model: MODELS.alpha,
    reasoning_effort: 'low',
    messages: [{ role: 'user', content: 'Weather in Oslo?' }],
    response_format: CHAT_FORMAT,
  });
  t.same(parsed.choices[0]?.message.parsed, ANSWER);
  t.match(
    upstream(h, 'alpha'),
    { thinking: { type: 'adaptive' }, output_config: { effort: 'low', format: { type: 'json_schema' } } },
    'effort and format in one output_config',
  );
});

t.test('Responses: text.format strict and strict function tools, whole and streamed, on every family', async (t) => {
  const h = await startHarness(t);
  const client = h.client((await h.createKey()).key);
  for (const family of FAMILIES) {
    const model = MODELS[family];
    const parsed = await client.responses.parse({ model, input: 'Weather in Oslo?', text: { format: TEXT_FORMAT } });
    t.same(parsed.output_parsed, ANSWER, `${family}: output_parsed`);
    askedNatively(t, h, family, family);
    const streamed = await client.responses.stream({ model, input: 'Weather in Oslo?', text: { format: TEXT_FORMAT } }).finalResponse();
    t.same(JSON.parse(streamed.output_text), ANSWER, `${family}: streamed, the JSON text`);
    for (const stream of [false, true]) {
      const where = `${family}${stream ? ' streamed' : ''}`;
      const response = stream
        ? await client.responses.stream({ model, input: 'Weather in Oslo?', tools: [RESPONSES_TOOL] }).finalResponse()
        : await client.responses.parse({ model, input: 'Weather in Oslo?', tools: [RESPONSES_TOOL] });
      const call = response.output.find((item) => item.type === 'function_call');
      t.match(call, { name: 'get_weather', parsed_arguments: { city: 'sample' } }, `${where}: a strict function call, parsed`);
      strictToolAsked(t, h, family, where);
    }
  }
});

t.test('Responses: a tool without strict is strict for gamma only when its schema is compatible', async (t) => {
  const h = await startHarness(t);
  const client = h.client((await h.createKey()).key);
  const { strict: _strict, ...absent } = RESPONSES_TOOL;
  await client.responses.create({
    model: MODELS.gamma,
    input: 'Weather?',
    tools: [absent, { ...absent, name: 'open', parameters: { type: 'object', properties: { a: { type: 'string' } } } }] as unknown as Array<
      typeof RESPONSES_TOOL
    >,
  });
  t.same(
    upstream(h, 'gamma')['tools'].map((tool: Json) => [tool['function'].name, tool['function'].strict]),
    [
      ['get_weather', true],
      ['open', false],
    ],
  );
});

async function messages(h: Harness, key: string, model: string, body: Json): Promise<{ status: number; json: Json }> {
  const res = await fetch(`${h.origin}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({ model, max_tokens: 1000, messages: [{ role: 'user', content: 'Weather in Oslo?' }], ...body }),
  });
  return { status: res.status, json: (await res.json()) as Json };
}

t.test('Messages: output_config.format and strict tools on every family', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  // A schema as alpha takes it (the Messages body goes to alpha as it is).
  const schema = {
    type: 'object',
    properties: { city: { type: 'string' }, days: { type: 'integer' } },
    required: ['city', 'days'],
    additionalProperties: false,
  };
  const tool = { name: 'get_weather', description: 'Weather of a city', input_schema: PARAMETERS, strict: true };
  for (const family of FAMILIES) {
    const answered = await messages(h, key, MODELS[family], { output_config: { format: { type: 'json_schema', schema } } });
    t.equal(answered.status, 200, `${family}: ${JSON.stringify(dig(answered.json, 'error'))}`);
    t.same(JSON.parse(String(dig(answered.json, 'content', 0, 'text'))), { city: 'sample', days: 1 }, `${family}: the JSON text`);
    if (family === 'gamma')
      t.match(upstream(h, 'gamma'), { response_format: { type: 'json_schema', json_schema: { strict: true } } }, 'gamma: strict, the schema being compatible');
    else askedNatively(t, h, family, family);
    const called = await messages(h, key, MODELS[family], { tools: [tool] });
    t.match([called.status, called.json['stop_reason']], [200, 'tool_use'], `${family}: a tool call`);
    t.match(
      (called.json['content'] as Json[]).find((block) => block['type'] === 'tool_use'),
      { name: 'get_weather', input: { city: 'sample' } },
      `${family}: the tool call`,
    );
    strictToolAsked(t, h, family, family);
  }
});

t.test("Messages through the official alpha client: parse's JSON output and a strict tool, whole and streamed, on every family", async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const client = new Anthropic({ apiKey: key, baseURL: h.origin, maxRetries: 0 });
  const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false };
  const messages = [{ role: 'user' as const, content: 'Weather in Oslo?' }];
  for (const family of FAMILIES) {
    const model = MODELS[family];
    const parsed = await client.messages.parse({ model, max_tokens: 500, messages, output_config: { format: { type: 'json_schema', schema } } });
    t.same(parsed.parsed_output, { city: 'sample' }, `${family}: parsed_output`);
    const streamed = await client.messages
      .stream({ model, max_tokens: 500, messages, output_config: { format: { type: 'json_schema', schema } } })
      .finalMessage();
    // As with the openai client, the stream helper parses only its own (zod) formats.
    const text = streamed.content.find((block) => block.type === 'text');
    t.same(JSON.parse(text?.type === 'text' ? text.text : ''), { city: 'sample' }, `${family}: streamed, the JSON text`);
    const tools = [{ name: 'get_weather', input_schema: { ...PARAMETERS, type: 'object' as const }, strict: true }];
    const called = await client.messages.stream({ model, max_tokens: 500, messages, tools }).finalMessage();
    t.match(
      called.content.find((block) => block.type === 'tool_use'),
      { name: 'get_weather', input: { city: 'sample' } },
      `${family}: streamed strict tool call`,
    );
  }
});

/** One refusing prompt in every format, whole and streamed (the streamed chat as its refusal deltas joined and its finish reason). */
async function refusedEverywhere(h: Harness, key: string, model: string): Promise<Json> {
  const client = h.client(key);
  const content = 'Something harmful [[sim:refusal=1]]';
  const chat = await client.chat.completions.create({ model, messages: [{ role: 'user', content }], response_format: CHAT_FORMAT });
  const chunks = await client.chat.completions.create({ model, messages: [{ role: 'user', content }], response_format: CHAT_FORMAT, stream: true });
  const chatStreamed = { refusal: '', finish: null as string | null };
  for await (const chunk of chunks) {
    chatStreamed.refusal += chunk.choices[0]?.delta.refusal ?? '';
    chatStreamed.finish = chunk.choices[0]?.finish_reason ?? chatStreamed.finish;
  }
  const response = await client.responses.create({ model, input: content, text: { format: TEXT_FORMAT } });
  const responseStreamed = await client.responses.stream({ model, input: content, text: { format: TEXT_FORMAT } }).finalResponse();
  const message = (await messages(h, key, model, { messages: [{ role: 'user', content }] })).json;
  return { chat: chat.choices[0], chatStreamed, response, responseStreamed, message };
}

t.test("the model's refusal is each format's refusal, whole and streamed: alpha's stop_reason, beta's blocked prompt", async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const explanation = 'The request asks for harmful content. (cyber)';
  const alpha = await refusedEverywhere(h, key, MODELS.alpha);
  t.match(alpha['chat'], { finish_reason: 'content_filter', message: { refusal: explanation, content: 'I cannot help with that.' } }, 'alpha chat');
  t.same(alpha['chatStreamed'], { refusal: explanation, finish: 'content_filter' }, 'alpha chat streamed');
  for (const which of ['response', 'responseStreamed']) {
    t.match(
      alpha[which],
      {
        status: 'incomplete',
        incomplete_details: { reason: 'content_filter' },
        output: [{ type: 'message', content: [{ type: 'output_text' }, { type: 'refusal', refusal: explanation }] }],
      },
      `alpha ${which}`,
    );
  }
  t.match(alpha['message'], { stop_reason: 'refusal', stop_details: { type: 'refusal', category: 'cyber' } }, 'alpha Messages: as alpha said it');
  const beta = await refusedEverywhere(h, key, MODELS.beta);
  t.match(beta['chat'], { finish_reason: 'content_filter' }, 'beta chat');
  t.equal(beta['chatStreamed'].finish, 'content_filter', 'beta chat streamed');
  for (const which of ['response', 'responseStreamed'])
    t.match(beta[which], { status: 'incomplete', incomplete_details: { reason: 'content_filter' } }, `beta ${which}`);
  t.match(beta['message'], { stop_reason: 'refusal' }, 'beta Messages');
});

t.test('alpha: strict tools over its limit are announced in x-gateway-adjusted, refused under parameters: strict', async (t) => {
  const tools = Array.from({ length: 21 }, (_, i) => ({ ...CHAT_TOOL, function: { ...CHAT_TOOL.function, name: `tool_${i}` } }));
  const body = JSON.stringify({ model: MODELS.alpha, messages: [{ role: 'user', content: 'Go' }], tools });
  for (const policy of ['lenient', 'strict'] as const) {
    const h = await startHarness(t, { configure: (config) => void (config.parameters = policy) });
    const { key } = await h.createKey();
    const res = await fetch(`${h.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    const json = (await res.json()) as Json;
    if (policy === 'lenient') {
      t.equal(res.status, 200);
      t.equal(res.headers.get('x-gateway-adjusted'), 'tools[20].function.strict=dropped:limit', 'the one over the limit, named');
      t.equal((upstream(h, 'alpha')['tools'] as Json[]).filter((tool) => tool['strict'] === true).length, 20, 'twenty keep strict');
    } else {
      t.match([res.status, json], [400, { error: { param: 'tools[20].function.strict', message: /at most 20 strict tools/ } }], 'refused, naming it');
    }
    await h.close();
  }
});

import Anthropic from '@anthropic-ai/sdk';
import { ApiError, GoogleGenAI, ThinkingLevel, type Content, type Part } from '@google/genai';
import t from 'tap';
import type { UpstreamConfig } from '../../src/config/schema.js';
import { createAlphaSimulator } from '../../plugins/vendor-alpha/simulator.js';
import { createBetaSimulator } from '../../plugins/vendor-beta/simulator.js';
import { startSimulatorsForMissingCredentials } from '../../src/simulators/start-simulators.js';
import { loadSetup } from '../../src/setup.js';
import { createLogger } from '../../src/log.js';
import { Writable } from 'node:stream';

/**
 * The simulators are faithful when the vendors' own official clients, pointed at them, work:
 * plain and streamed replies, tool calls, usage, embeddings and typed errors.
 */

const KEY = 'sim-test-key';

t.test('the alpha simulator through the official alpha SDK', async (t) => {
  const sim = createAlphaSimulator({ apiKey: KEY });
  await sim.listen();
  t.teardown(() => sim.close());
  const client = new Anthropic({ apiKey: KEY, baseURL: sim.url, maxRetries: 0 });

  const message = await client.messages.create({
    model: 'alpha-sonnet-4.6',
    max_tokens: 100,
    system: 'Be brief.',
    messages: [{ role: 'user', content: 'Say hi [[sim:tokens=3]]' }],
  });
  t.equal(message.type, 'message');
  t.same(message.content, [{ type: 'text', text: 'Hello from the' }]);
  t.equal(message.stop_reason, 'end_turn');
  t.equal(message.usage.input_tokens, 5, 'system and user words');
  t.equal(message.usage.output_tokens, 3);

  const stream = client.messages.stream({
    model: 'alpha-sonnet-4.6',
    max_tokens: 100,
    tools: [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }],
    messages: [{ role: 'user', content: 'Weather? [[sim:parallel=2]]' }],
  });
  const events: string[] = [];
  stream.on('streamEvent', (event) => events.push(event.type));
  const final = await stream.finalMessage();
  t.equal(final.stop_reason, 'tool_use');
  t.same(
    final.content.map((b) => b.type === 'tool_use' && [b.name, b.input]),
    [
      ['get_weather', { city: 'sample' }],
      ['get_weather', { city: 'sample' }],
    ],
    'input_json_delta fragments assemble',
  );
  t.equal(final.usage.output_tokens, 20);
  t.equal(events[0], 'message_start');
  t.equal(events.at(-1), 'message_stop');

  const text = await client.messages.stream({ model: 'alpha-sonnet-4.6', max_tokens: 2, messages: [{ role: 'user', content: 'x' }] }).finalMessage();
  t.equal(text.stop_reason, 'max_tokens');

  sim.faults.push({ status: 529 });
  const overloaded = await client.messages.create({ model: 'a', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
  t.type(overloaded, Anthropic.APIError);
  t.equal((overloaded as InstanceType<typeof Anthropic.APIError>).status, 529);
  t.match((overloaded as Error).message, /overloaded_error/);
  sim.faults.push({ status: 429, retryAfter: '3' });
  t.type(
    await client.messages.create({ model: 'a', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e),
    Anthropic.RateLimitError,
  );

  const midStream = await client.messages
    .stream({ model: 'a', max_tokens: 50, messages: [{ role: 'user', content: 'x [[sim:error_after=3]]' }] })
    .finalMessage()
    .catch((e: unknown) => e);
  t.match((midStream as Error).message, /overloaded_error/, 'the SDK raises the in-stream error event');

  const unauthenticated = await new Anthropic({ apiKey: 'wrong', baseURL: sim.url, maxRetries: 0 }).messages
    .create({ model: 'a', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] })
    .catch((e: unknown) => e);
  t.type(unauthenticated, Anthropic.AuthenticationError);
  const invalid = await client.messages.create({ model: 'a', max_tokens: 5, messages: [{ role: 'assistant', content: 'x' }] }).catch((e: unknown) => e);
  t.type(invalid, Anthropic.BadRequestError, 'the conversation rules of the real API are enforced');
  t.match((invalid as Error).message, /first message must use the \\"user\\" role/);
});

t.test('the beta simulator through the official beta SDK', async (t) => {
  const sim = createBetaSimulator({ apiKey: KEY });
  await sim.listen();
  t.teardown(() => sim.close());
  const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: sim.url } });

  const reply = await ai.models.generateContent({ model: 'beta-3.1-pro', contents: 'Say hi [[sim:tokens=3]]', config: { systemInstruction: 'Be brief.' } });
  t.equal(reply.text, 'Hello from the');
  t.equal(reply.candidates?.[0]?.finishReason, 'STOP');
  t.same(
    { prompt: reply.usageMetadata?.promptTokenCount, output: reply.usageMetadata?.candidatesTokenCount, total: reply.usageMetadata?.totalTokenCount },
    { prompt: 5, output: 3, total: 8 },
  );
  t.equal(sim.requests.at(-1)?.path, '/v1beta/models/beta-3.1-pro:generateContent');

  const chunks = [];
  for await (const chunk of await ai.models.generateContentStream({
    model: 'beta-3.1-pro',
    contents: 'Weather? [[sim:parallel=2]]',
    config: {
      tools: [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } }] }],
    },
  })) {
    chunks.push(chunk);
  }
  t.equal(sim.requests.at(-1)?.path, '/v1beta/models/beta-3.1-pro:streamGenerateContent?alt=sse');
  const calls = chunks.flatMap((c) => c.functionCalls ?? []);
  t.same(
    calls.map((c) => [c.name, c.args]),
    [
      ['get_weather', { city: 'sample' }],
      ['get_weather', { city: 'sample' }],
    ],
    'whole calls, spread over chunks',
  );
  t.ok(chunks[0]?.candidates?.[0]?.content?.parts?.[0]?.thoughtSignature, 'the first call carries a thought signature');
  t.equal(chunks.at(-1)?.usageMetadata?.candidatesTokenCount, 20, 'running usage totals, the last is final');

  const embedded = await ai.models.embedContent({ model: 'beta-embedding-001', contents: ['alpha', 'beta'], config: { outputDimensionality: 4 } });
  t.equal(embedded.embeddings?.length, 2);
  t.equal(embedded.embeddings?.[0]?.values?.length, 4);
  t.match(sim.requests.at(-1)?.path, /batchEmbedContents/);

  for (const [status, expected] of [
    [429, 429],
    [503, 503],
    [401, 400],
  ] as const) {
    sim.faults.push({ status });
    const error = await ai.models.generateContent({ model: 'beta-3.1-pro', contents: 'x' }).catch((e: unknown) => e);
    t.type(error, ApiError);
    t.equal((error as ApiError).status, expected, `simulated ${status} reaches the SDK as ${expected}`);
  }
  const alternation = await ai.models
    .generateContent({
      model: 'beta-3.1-pro',
      contents: [
        { role: 'user', parts: [{ text: 'a' }] },
        { role: 'user', parts: [{ text: 'b' }] },
      ],
    })
    .catch((e: unknown) => e);
  t.match((alternation as Error).message, /alternate between user and model/, 'the conversation rules of the real API are enforced');
});

t.test('alpha thinking through the official alpha SDK: signed blocks, the tool loop, and its refusals', async (t) => {
  const sim = createAlphaSimulator({ apiKey: KEY });
  await sim.listen();
  t.teardown(() => sim.close());
  const client = new Anthropic({ apiKey: KEY, baseURL: sim.url, maxRetries: 0 });
  const tools: Anthropic.Tool[] = [{ name: 'get_weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }];
  const question: Anthropic.MessageParam = { role: 'user', content: 'Weather?' };
  const first = await client.messages.create({
    model: 'alpha-haiku-4.5',
    max_tokens: 4000,
    thinking: { type: 'enabled', budget_tokens: 2000 },
    tools,
    messages: [question],
  });
  t.match(first.content, [
    { type: 'thinking', thinking: 'Considering the request step by step.', signature: /^[A-Za-z0-9+/=]{40,}$/ },
    { type: 'tool_use', name: 'get_weather' },
  ]);
  t.same([first.usage.output_tokens, first.usage.output_tokens_details?.thinking_tokens], [16, 6], 'thinking inside output_tokens, and said beside');
  const call = first.content[1] as Anthropic.ToolUseBlock;
  const answer = (content: Anthropic.ContentBlockParam[]): Anthropic.MessageCreateParamsNonStreaming => ({
    model: 'alpha-haiku-4.5',
    max_tokens: 4000,
    thinking: { type: 'enabled', budget_tokens: 2000 },
    tools,
    messages: [question, { role: 'assistant', content }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'sunny' }] }],
  });
  const second = await client.messages.create(answer(first.content));
  t.match(second.content.at(-1), { type: 'text', text: /^Tool results: sunny/ }, 'the thinking block handed back unchanged: the loop goes on');
  const altered = await client.messages
    .create(answer([{ ...(first.content[0] as Anthropic.ThinkingBlock), thinking: 'Something else.' }, call]))
    .catch((e: unknown) => e);
  t.type(altered, Anthropic.BadRequestError);
  t.match((altered as Error).message, /Invalid `signature` in `thinking` block/, 'an altered block is refused');
  const missing = await client.messages.create(answer([call])).catch((e: unknown) => e);
  t.match((missing as Error).message, /Expected `thinking` or `redacted_thinking`, but found `tool_use`/, 'a tool turn without its thinking block is refused');

  const streamed = await client.messages
    .stream({
      model: 'alpha-sonnet-4.6',
      max_tokens: 100,
      thinking: { type: 'adaptive' },
      output_config: { effort: 'low' },
      messages: [{ role: 'user', content: 'Hi [[sim:tokens=2]]' }],
    })
    .finalMessage();
  t.match(
    streamed.content,
    [
      { type: 'thinking', thinking: 'Considering the request step by step.', signature: /^[A-Za-z0-9+/=]{40,}$/ },
      { type: 'text', text: 'Hello from' },
    ],
    'thinking_delta and signature_delta assemble',
  );
  const hidden = await client.messages.create({
    model: 'alpha-sonnet-4.6',
    max_tokens: 100,
    thinking: { type: 'adaptive' },
    tools,
    messages: [{ role: 'user', content: 'Weather? [[sim:redacted=1]]' }],
  });
  t.match(hidden.content[0], { type: 'redacted_thinking', data: /\./ });
  const again = await client.messages.create({
    ...answer(hidden.content),
    messages: [
      { role: 'user', content: 'Weather? [[sim:redacted=1]]' },
      { role: 'assistant', content: hidden.content as Anthropic.ContentBlockParam[] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: (hidden.content[1] as Anthropic.ToolUseBlock).id, content: 'rain' }] },
    ],
  });
  t.equal(again.stop_reason, 'end_turn', 'a redacted block goes back as it came');
  for (const [label, extra] of [
    ['temperature', { temperature: 0.5 }],
    ['top_k', { top_k: 5 }],
    ['a forced tool', { tool_choice: { type: 'any' } }],
    ['a small budget', { thinking: { type: 'enabled', budget_tokens: 500 } }],
  ] as const) {
    const refused = await client.messages
      .create({
        model: 'alpha-haiku-4.5',
        max_tokens: 4000,
        thinking: { type: 'enabled', budget_tokens: 2000 },
        tools,
        messages: [question],
        ...extra,
      } as Anthropic.MessageCreateParamsNonStreaming)
      .catch((e: unknown) => e);
    t.type(refused, Anthropic.BadRequestError, `${label} while thinking is refused`);
  }
});

t.test('beta thinking through the official beta SDK: thoughts, thoughtsTokenCount, signatures checked on replay', async (t) => {
  const sim = createBetaSimulator({ apiKey: KEY });
  await sim.listen();
  t.teardown(() => sim.close());
  const ai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: sim.url } });
  const tools = [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } } } }] }];
  const question: Content = { role: 'user', parts: [{ text: 'Weather?' }] };
  const first = await ai.models.generateContent({
    model: 'beta-3-flash',
    contents: [question],
    config: { tools, thinkingConfig: { thinkingLevel: ThinkingLevel.LOW, includeThoughts: true } },
  });
  const parts = first.candidates?.[0]?.content?.parts ?? [];
  t.match(parts, [
    { text: 'Considering the request step by step.', thought: true },
    { functionCall: { name: 'get_weather' }, thoughtSignature: /^[A-Za-z0-9+/=]{40,}$/ },
  ]);
  t.same(
    [first.usageMetadata?.thoughtsTokenCount, first.usageMetadata?.candidatesTokenCount, first.usageMetadata?.totalTokenCount],
    [6, 10, 17],
    'thoughts beside the candidates',
  );
  const call = parts[1] as Part;
  const replay = (modelParts: Part[]) =>
    ai.models.generateContent({
      model: 'beta-3-flash',
      contents: [
        question,
        { role: 'model', parts: modelParts },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { output: 'sunny' } } }] },
      ],
      config: { tools },
    });
  t.match((await replay(parts)).text, /^Tool results:/, 'its own signature, handed back: accepted');
  t.match((await replay([{ ...call, thoughtSignature: 'skip_thought_signature_validator' }])).text, /^Tool results:/, 'the placeholder passes');
  const missing = await replay([{ functionCall: call.functionCall }]).catch((e: unknown) => e);
  t.match((missing as ApiError).message, /missing a thought_signature/, 'a call without its signature is refused');
  const altered = await replay([{ ...call, thoughtSignature: 'AAAA' }]).catch((e: unknown) => e);
  t.equal((altered as ApiError).status, 400, 'an altered signature is refused');

  const both = await ai.models
    .generateContent({ model: 'beta-3-flash', contents: 'x', config: { thinkingConfig: { thinkingLevel: ThinkingLevel.LOW, thinkingBudget: 100 } } })
    .catch((e: unknown) => e);
  t.match((both as ApiError).message, /Only one of thinking_budget and thinking_level/);
  const medium = await ai.models
    .generateContent({ model: 'beta-3.1-pro', contents: 'x', config: { thinkingConfig: { thinkingLevel: ThinkingLevel.MEDIUM } } })
    .catch((e: unknown) => e);
  t.match((medium as ApiError).message, /not supported/, 'Pro takes LOW and HIGH only');
  const unseen = await ai.models.generateContent({
    model: 'beta-3.1-pro',
    contents: 'x [[sim:tokens=2]]',
    config: { thinkingConfig: { thinkingLevel: ThinkingLevel.HIGH } },
  });
  t.same([unseen.text, unseen.usageMetadata?.thoughtsTokenCount], ['Hello from', 6], 'without includeThoughts the thoughts are only counted');
  t.ok(unseen.candidates?.[0]?.content?.parts?.at(-1)?.thoughtSignature, 'the last part of a thinking reply is signed');
});

t.test('npm start serves every family without a credential from its simulator', async (t) => {
  const { config, vendors } = await loadSetup('config/gateway.yaml', { GAMMA_API_KEY: 'real-gamma-key' });
  const lines: string[] = [];
  const log = createLogger(
    'info',
    new Writable({
      write: (chunk: Buffer, _e, done) => {
        lines.push(chunk.toString());
        done();
      },
    }),
  );
  const started = await startSimulatorsForMissingCredentials(config, vendors, log);
  t.teardown(() => Promise.all(started.servers.map((sim) => sim.close())));
  t.same(started.families, ['alpha', 'beta'], 'gamma has a key, so only alpha and beta are simulated');
  t.match((config.upstreams['alpha'] as UpstreamConfig | undefined)?.base_url, /^http:\/\/127\.0\.0\.1:\d+$/);
  t.equal((config.upstreams['gamma'] as UpstreamConfig | undefined)?.base_url, 'https://api.openai.com');
  t.match(lines.join(''), /SIMULATOR: no ALPHA_API_KEY is set/);
  t.match(lines.join(''), /SIMULATOR: no BETA_API_KEY is set/);
});

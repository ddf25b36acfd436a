import type { ModelEntry } from '../../src/catalogue/catalogue.js';
import t from 'tap';
import { geminiFormat, pathModel } from '../../plugins/ingress-gemini/format.js';
import { GEMINI_ENDPOINTS } from '../../plugins/ingress-gemini/index.js';
import { jsonSchemaOf } from '../../plugins/ingress-gemini/openapi-schema.js';
import { readGeminiRequest } from '../../plugins/ingress-gemini/read.js';
import { geminiReply, type GeminiEnvelope } from '../../plugins/ingress-gemini/render.js';
import { GeminiStreamWriter } from '../../plugins/ingress-gemini/stream.js';
import { geminiErrors, usageMetadata } from '../../plugins/ingress-gemini/wire.js';
import { Call } from '../../src/chain/call.js';
import { GatewayError } from '../../src/http/errors.js';
import type { Reply } from '../../src/neutral/reply.js';
import { sealed, shownSeal, TEST_SEAL } from '../helpers/reasoning-seal.js';
import { catalogue, detachedExchange, thrown } from '../helpers/translate.js';

/** The Gemini format's reader, outline, writer and stream writer, table-driven with literal fixtures (docs/formats/gemini.md). */

type Body = Record<string, unknown>;

const [GENERATE, STREAM, COUNT] = GEMINI_ENDPOINTS as [(typeof GEMINI_ENDPOINTS)[0], (typeof GEMINI_ENDPOINTS)[0], (typeof GEMINI_ENDPOINTS)[0]];

function callOf(body: Body, endpoint = GENERATE, url = '/v1beta/models/gamma-5.4:generateContent'): Call {
  const { req, res } = detachedExchange();
  req.url = url;
  const call = new Call(endpoint, req, res, 0, Buffer.from(JSON.stringify(body)));
  call.resolveModel(catalogue.resolve('gamma-5.4') as ModelEntry);
  call.reasoningSeal = TEST_SEAL;
  return call;
}

const read = (body: Body) => readGeminiRequest(callOf(body));
const refusal = (body: Body): unknown => thrown(() => read(body));
const user = (...parts: Body[]): Body => ({ role: 'user', parts });
const base = (extra: Body = {}): Body => ({ contents: [user({ text: 'Hi' })], ...extra });
const DECLARATION = { name: 'get_weather', parametersJsonSchema: { type: 'object' } };
const tools = (...names: string[]): Body[] => [{ functionDeclarations: names.map((name) => ({ ...DECLARATION, name })) }];
const CALL = { functionCall: { name: 'get_weather', args: { city: 'Oslo' } } };

t.test('the path, the stream method and the outline', async (t) => {
  t.equal(pathModel(callOf({}, GENERATE, '/v1beta/models/alpha%2Dsonnet-4.6:generateContent?key=x')), 'alpha-sonnet-4.6', 'percent-decoded');
  t.equal(pathModel(callOf({}, GENERATE, '/v1beta/models/%E0%A4%A:generateContent')), '%E0%A4%A', 'left as it is when it does not decode');
  t.match(geminiFormat.check(callOf(base(), STREAM, '/v1beta/models/gamma-5.4:streamGenerateContent')), { param: 'alt' }, 'a stream without alt=sse');
  t.equal(geminiFormat.check(callOf(base(), STREAM, '/v1beta/models/gamma-5.4:streamGenerateContent?alt=sse')), undefined);
  const image = { inlineData: { mimeType: 'image/png', data: 'AAAA' } };
  const outline = geminiFormat.outline(
    callOf(
      base({
        contents: [user({ text: 'a' }), { role: 'model', parts: [{ text: 'b' }] }, user({ text: 'c' }, image)],
        tools: tools('f'),
        generationConfig: { responseMimeType: 'application/json', maxOutputTokens: 100 },
      }),
    ),
  );
  t.match(outline, {
    model: 'gamma-5.4',
    stream: false,
    maxOutputTokens: 100,
    maxOutputParam: 'generationConfig.maxOutputTokens',
    asks: { tools: 'tools', json: 'generationConfig.responseMimeType', image: 'contents[2].parts[1].inlineData' },
  });
  t.match(
    geminiFormat.outline(callOf(base({ tools: [{ googleSearch: {} }] }), COUNT)),
    { maxOutputTokens: 0, maxOutputParam: null, asks: { tools: null, image: null } },
    'a count',
  );
});

t.test('snake_case names and the wrapped count request', async (t) => {
  const request = read({
    contents: [{ role: 'user', parts: [{ text: 'Hi' }] }],
    system_instruction: { parts: [{ text: 'Be brief.' }] },
    generation_config: { max_output_tokens: 50, top_k: 3 },
    generationConfig: { temperature: 0.5 },
    tools: [{ function_declarations: [{ name: 'f', parameters_json_schema: { type: 'object', properties: { a_b: { type: 'string' } } } }] }],
  });
  t.match(
    request,
    { system: ['Be brief.'], maxTokens: 50, topK: 3, temperature: 0.5, tools: [{ name: 'f', parameters: { properties: { a_b: { type: 'string' } } } }] },
    'both spellings merged, schemas left alone',
  );
  const counted = readGeminiRequest(callOf({ generateContentRequest: { model: 'models/x', contents: [user({ text: 'Count me' })] } }, COUNT));
  t.match(counted.turns, [{ role: 'user', parts: [{ type: 'text', text: 'Count me' }] }], 'generateContentRequest read, its model ignored');
});

t.test('contents: roles, parts, calls and their answers', async (t) => {
  const made = read({
    contents: [
      user({ text: 'Weather?' }),
      { role: 'model', parts: [{ text: 'Thinking.', thought: true }, { text: 'Checking.' }, CALL, { ...CALL, thoughtSignature: 'CpwB' }] },
      {
        role: 'function',
        parts: [
          { functionResponse: { name: 'get_weather', response: { error: 'no network' } } },
          { functionResponse: { name: 'get_weather', response: { temp: 4 } } },
        ],
      },
    ],
    tools: tools('get_weather'),
  });
  t.match(made.turns[1]?.parts, [
    { type: 'reasoning', text: 'Thinking.', state: { family: 'beta', data: 'CpwB' } },
    { type: 'text', text: 'Checking.' },
    { type: 'tool_call', id: 'call_1_2' },
    { type: 'tool_call', id: 'call_1_3', state: { family: 'beta', data: 'CpwB' } },
  ]);
  t.match(
    made.turns[2]?.parts,
    [
      { type: 'tool_result', id: 'call_1_2', content: 'no network', isError: true },
      { type: 'tool_result', id: 'call_1_3', content: '{"temp":4}' },
    ],
    'answered by name in order; a lone error string is an error',
  );
  const alpha = sealed({ family: 'alpha', kind: 'signature', data: 'sig' });
  const led = read({ contents: [user({ text: 'a' }), { role: 'model', parts: [{ text: 'Hello.', thoughtSignature: alpha }] }, user({ text: 'b' })] });
  t.match(
    led.turns[1]?.parts,
    [
      { type: 'reasoning', text: '', state: { family: 'alpha', data: 'sig' } },
      { type: 'text', text: 'Hello.' },
    ],
    'a lead signature without thoughts: a run of its own',
  );
  const refusals: Array<[Body, string]> = [
    [base({ contents: [user({ fileData: { fileUri: 'x' } })] }), 'contents[0].parts[0].fileData'],
    [base({ contents: [user(CALL)] }), 'contents[0].parts[0].functionCall'],
    [base({ contents: [user({ inlineData: { mimeType: 'application/pdf', data: 'AAAA' } })] }), 'contents[0].parts[0].inlineData'],
    [base({ contents: [user({ text: 'a' }), { role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] }] }), 'contents[1].parts[0]'],
    [
      base({ contents: [user({ text: 'a' }), { role: 'model', parts: [{ functionResponse: { name: 'f', response: {} } }] }] }),
      'contents[1].parts[0].functionResponse',
    ],
    [base({ contents: [user({ functionResponse: { name: 'f', response: {} } })] }), 'contents[0].parts[0].functionResponse'],
    [
      base({
        contents: [
          user({ text: 'a' }),
          { role: 'model', parts: [{ functionCall: { id: 'c1', name: 'f' } }] },
          user({ functionResponse: { id: 'c1', name: 'g', response: {} } }),
        ],
      }),
      'contents[2].parts[0].functionResponse.name',
    ],
    [base({ systemInstruction: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] } }), 'systemInstruction.parts[0]'],
    [base({ cachedContent: 'cachedContents/x' }), 'cachedContent'],
    [base({ tools: [{ functionDeclarations: [{ name: 'f', behavior: 'BLOCKING' }] }] }), 'tools[0].functionDeclarations[0].behavior'],
    [base({ tools: [{ retrieval: null, vertexRagStore: {} }] }), 'tools[0].vertexRagStore'],
    [base({ toolConfig: { retrievalConfig: {} } }), 'toolConfig.retrievalConfig'],
    [base({ generationConfig: { thinkingConfig: { thinkingBudget: 10, thinkingLevel: 'LOW' } } }), 'generationConfig.thinkingConfig.thinkingBudget'],
    [base({ generationConfig: { thinkingConfig: { foo: 1 } } }), 'generationConfig.thinkingConfig.foo'],
    [
      base({ tools: [{ functionDeclarations: [{ name: 'f', parameters: { type: 'OBJECT' }, parametersJsonSchema: { type: 'object' } }] }] }),
      'tools[0].functionDeclarations[0].parameters',
    ],
  ];
  for (const [body, param] of refusals) t.match(refusal(body), { status: 400, param }, param);
});

t.test('tool choice, JSON output, thinking and what is beyond one candidate', async (t) => {
  const calling = (config: Body, names = ['a', 'b']) => read(base({ tools: tools(...names), toolConfig: { functionCallingConfig: config } }));
  t.equal(calling({ mode: 'NONE' }).toolChoice, 'none');
  t.equal(calling({}).toolChoice, null, 'no mode: the vendor default');
  t.equal(calling({ mode: 'AUTO' }).toolChoice, 'auto');
  t.match(calling({ mode: 'ANY' }), { toolChoice: 'required', tools: [{ name: 'a' }, { name: 'b' }] });
  t.match(calling({ mode: 'ANY', allowedFunctionNames: ['b'] }), { toolChoice: { name: 'b' } });
  t.match(
    calling({ mode: 'ANY', allowedFunctionNames: ['a', 'b'] }, ['a', 'b', 'c']),
    { toolChoice: 'required', tools: [{ name: 'a' }, { name: 'b' }] },
    'several names: only those offered',
  );
  t.match(calling({ mode: 'VALIDATED' }).tools, [{ strict: { param: 'toolConfig.functionCallingConfig.mode' } }, { strict: {} }]);
  t.match(
    thrown(() => calling({ mode: 'AUTO', allowedFunctionNames: ['a'] })),
    { param: 'toolConfig.functionCallingConfig.allowedFunctionNames' },
  );
  t.match(
    thrown(() => calling({ mode: 'ANY', allowedFunctionNames: ['z'] })),
    { param: 'toolConfig.functionCallingConfig.allowedFunctionNames' },
  );
  t.match(
    thrown(() => calling({ mode: 'ANY' }, [])),
    { param: 'toolConfig.functionCallingConfig.mode' },
  );

  const format = (config: Body) => read(base({ generationConfig: config })).responseFormat;
  t.match(format({ responseMimeType: 'application/json' }), { type: 'json_object' });
  t.match(format({ responseMimeType: 'application/json', responseSchema: { type: 'OBJECT', properties: { a: { type: 'STRING' } } } }), {
    type: 'json_schema',
    schema: { type: 'object', properties: { a: { type: 'string' } } },
    strict: { param: 'generationConfig.responseSchema', implied: true },
  });
  t.equal(format({ responseMimeType: 'text/plain' }), null);
  for (const [config, param] of [
    [{ responseJsonSchema: { type: 'object' } }, 'generationConfig.responseJsonSchema'],
    [{ responseMimeType: 'text/x.enum' }, 'generationConfig.responseMimeType'],
    [{ responseMimeType: 'application/json', responseSchema: {}, responseJsonSchema: {} }, 'generationConfig.responseSchema'],
    [{ responseMimeType: 'application/json', responseJsonSchema: { type: 'array' } }, 'generationConfig.responseJsonSchema'],
    [{ candidateCount: 2 }, 'generationConfig.candidateCount'],
    [{ responseModalities: ['AUDIO'] }, 'generationConfig.responseModalities'],
  ] as Array<[Body, string]>)
    t.match(
      thrown(() => format(config)),
      { status: 400, param },
      param,
    );

  const thinking = (config: Body) => read(base({ generationConfig: { thinkingConfig: config } })).reasoning;
  t.same(thinking({ thinkingLevel: 'HIGH', includeThoughts: true }), {
    kind: 'effort',
    effort: 'high',
    param: 'generationConfig.thinkingConfig.thinkingLevel',
  });
  t.same(thinking({ thinkingBudget: 0 }), { kind: 'off', param: 'generationConfig.thinkingConfig.thinkingBudget' });
  t.same(thinking({ thinkingBudget: -1, includeThoughts: true }), {
    kind: 'effort',
    effort: 'medium',
    param: 'generationConfig.thinkingConfig.thinkingBudget',
    ifReasoning: true,
  });
  t.same(
    thinking({ thinkingBudget: 512 }),
    { kind: 'budget', tokens: 512, param: 'generationConfig.thinkingConfig.thinkingBudget', omitted: true },
    'without includeThoughts: omitted',
  );
  t.equal(thinking({ includeThoughts: true }), null, 'includeThoughts alone asks nothing');
  t.equal(read(base({ generationConfig: { thinkingConfig: { thinkingLevel: 'THINKING_LEVEL_UNSPECIFIED' } } })).reasoning, null);
});

t.test("Google's OpenAPI schema as JSON Schema", async (t) => {
  t.same(
    jsonSchemaOf({
      type: 'OBJECT',
      propertyOrdering: ['a'],
      properties: { a: { type: 'ARRAY', items: { type: 'STRING', nullable: true } }, b: { anyOf: [{ type: 'INTEGER' }, true] }, c: true },
      prefixItems: [{ type: 'NUMBER' }, 3],
    }),
    {
      type: 'object',
      properties: { a: { type: 'array', items: { type: ['string', 'null'] } }, b: { anyOf: [{ type: 'integer' }, true] }, c: true },
      prefixItems: [{ type: 'number' }, 3],
    },
  );
});

const ENVELOPE: GeminiEnvelope = { responseId: 'r1', modelVersion: 'gamma-5.4', thoughts: true, family: 'gamma', seal: shownSeal };
const usage = { promptTokens: 10, completionTokens: 5 };
const reply = (choice: Partial<Reply['choices'][number]>): Reply => ({
  choices: [{ content: null, refusal: null, toolCalls: [], finish: 'stop', ...choice }],
  usage,
});

t.test('the reply: parts, signatures, finish reasons', async (t) => {
  const beta = { family: 'beta', kind: 'thought_signature', data: 'S1' };
  const alpha = { family: 'alpha', kind: 'signature', data: 'S2' };
  const two = geminiReply(
    reply({
      reasoning: [
        { text: 'one', state: beta },
        { text: 'two', state: alpha },
      ],
      content: 'Hi',
    }),
    ENVELOPE,
  ) as { candidates: Array<{ content: { parts: Body[] } }> };
  t.same(
    two.candidates[0]?.content.parts,
    [
      { text: 'one', thought: true },
      { text: 'two', thought: true, thoughtSignature: shownSeal(alpha) },
      { text: 'Hi', thoughtSignature: shownSeal(beta) },
    ],
    "the lead on the last part, a later run's on its own part",
  );
  t.match(
    geminiReply(reply({ reasoning: [{ text: '', state: beta }] }), ENVELOPE),
    { candidates: [{ content: { parts: [{ text: '', thoughtSignature: shownSeal(beta) }] } }] },
    'nothing else: a part of its own',
  );
  t.match(geminiReply(reply({ refusal: 'No.', finish: 'stop' }), ENVELOPE), {
    candidates: [{ content: { parts: [{ text: 'No.' }] }, finishReason: 'SAFETY' }],
  });
  const cut = reply({ toolCalls: [{ id: 'c', name: 'f', arguments: '{"a":' }], finish: 'length' });
  t.match(
    geminiReply(cut, ENVELOPE),
    { candidates: [{ content: { parts: [{ functionCall: { args: {} } }] }, finishReason: 'MAX_TOKENS' }] },
    'cut arguments stand as {}',
  );
  t.match(
    thrown(() => geminiReply({ ...cut, choices: [{ ...(cut.choices[0] as Reply['choices'][number]), finish: 'tool_calls' }] }, ENVELOPE)),
    { status: 502 },
  );
  t.match(geminiReply({ choices: [], usage }, ENVELOPE), { candidates: [{ content: { parts: [] }, finishReason: 'STOP' }] }, 'no choice');
  t.same(usageMetadata({ promptTokens: 10, completionTokens: 8, cachedTokens: 4, reasoningTokens: 3 }), {
    promptTokenCount: 10,
    candidatesTokenCount: 5,
    totalTokenCount: 18,
    cachedContentTokenCount: 4,
    thoughtsTokenCount: 3,
  });
});

const chunks = (text: string): Body[] =>
  text
    .split('\r\n\r\n')
    .filter(Boolean)
    .map((frame) => {
      t.match(frame, /^data: \{.*\}$/s, 'one data line a chunk');
      return JSON.parse(frame.slice(6)) as Body;
    });

t.test('the stream: chunks as js-genai parses them, the last held until completion', async (t) => {
  const hidden = new GeminiStreamWriter({ ...ENVELOPE, thoughts: false }, 7);
  let out = hidden.start() + hidden.reasoning(0, 'secret ') + hidden.reasoningState(0, { family: 'beta', kind: 'thought_signature', data: 'S1' });
  t.equal(out, '', "beta's hidden thoughts write nothing; its state is the lead");
  out += hidden.reasoning(0, 'bound') + hidden.reasoningState(0, { family: 'alpha', kind: 'signature', data: 'S2' });
  out += hidden.text(0, '') + hidden.refusal(0, 'No.') + hidden.toolCall(0, 0, { id: 'c', name: 'f', arguments: '{"a"' }) + hidden.toolArguments(0, 0, ':1}');
  out += hidden.toolArguments(0, 5, 'x') + hidden.finish(0, 'tool_calls') + hidden.finish(0, 'stop') + hidden.close(null);
  t.same(
    chunks(out).map((chunk) => (chunk['candidates'] as Array<{ content: { parts: Body[] } }>)[0]?.content.parts),
    [[{ text: 'bound', thought: true, thoughtSignature: shownSeal({ family: 'alpha', kind: 'signature', data: 'S2' }) }], [{ text: 'No.' }]],
    'a signature over its text brings the text; the refusal as text',
  );
  t.ok(hidden.complete);
  t.same(
    chunks(hidden.done()),
    [
      {
        candidates: [
          {
            content: {
              role: 'model',
              parts: [{ functionCall: { id: 'c', name: 'f', args: { a: 1 } }, thoughtSignature: 'sealed(beta.thought_signature.S1)' }],
            },
            finishReason: 'SAFETY',
            index: 0,
          },
        ],
        usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 5, totalTokenCount: 12 },
        modelVersion: 'gamma-5.4',
        responseId: 'r1',
      },
    ],
    'the held last chunk: calls whole, the lead, the estimate when the vendor sent no usage',
  );
  const shown = new GeminiStreamWriter(ENVELOPE, 1);
  shown.reasoningState(0, { family: 'beta', kind: 'thought_signature', data: 'S1' });
  t.same(
    chunks(shown.reasoningState(0, { family: 'beta', kind: 'thought_signature', data: 'S3' })).length,
    1,
    "a later run's state, shown on a part of its own",
  );
  shown.close({ promptTokens: 1, completionTokens: 1 });
  t.match(
    chunks(shown.done()),
    [{ candidates: [{ content: { parts: [{ text: '', thoughtSignature: 'sealed(beta.thought_signature.S1)' }] }, finishReason: 'STOP' }] }],
    'no calls: the lead on an empty text part',
  );
  const failure = new GatewayError(502, 'The upstream broke off.');
  t.same(JSON.parse(shown.fail(failure)), JSON.parse(geminiErrors.frame(failure)), 'a failure after the 200 is the bare error object');
  t.notMatch(shown.fail(failure), /^data:/);
});

t.test("errors in Google's shape", async (t) => {
  t.same(JSON.parse(geminiErrors.body(new GatewayError(429, 'Slow down.', { headers: { 'retry-after': '12' } }))), {
    error: {
      code: 429,
      message: 'Slow down.',
      status: 'RESOURCE_EXHAUSTED',
      details: [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'rate_limit_exceeded', domain: 'gateway' },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '12s' },
      ],
    },
  });
  t.match(JSON.parse(geminiErrors.body(new GatewayError(503, 'Down.'))), {
    error: { code: 503, status: 'UNAVAILABLE', details: [{ reason: 'service_unavailable' }] },
  });
  t.match(
    JSON.parse(geminiErrors.body(new GatewayError(429, 'Upstream.'))),
    { error: { details: [{ reason: 'rate_limit_exceeded' }] } },
    'no wait known: no RetryInfo',
  );
});

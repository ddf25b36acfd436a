import pino from 'pino';
import t from 'tap';
import type { GatewayError } from '../../src/http/errors.js';
import type { GuardedFetcher } from '../../src/net/guarded-fetch.js';
import { ImageFetchError } from '../../src/net/guarded-fetch.js';
import { SIGNATURE_TTL_MS, ThoughtSignatures } from '../../plugins/vendor-beta/thought-signatures.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FakeClock } from '../helpers/harness.js';
import { withPluginStates } from '../helpers/plugin-state.js';
import { BetaTranslator, type BetaServices } from '../../plugins/vendor-beta/translator.js';
import type { Call } from '../../src/chain/call.js';
import { unsealedText } from '../helpers/reasoning-seal.js';
import { fixedIds, frames, makeCall, runStream, thrown, type CallOptions } from '../helpers/translate.js';

/**
 * Every row of the beta mapping tables (docs/vendor-formats.md: #request-mapping, #beta-response, #beta-finish-reasons, #beta-usage, #beta-stream, #beta-errors), each direction, with
 * literal JSON and SSE fixtures. Model beta-3-flash.
 */

const MODEL = 'beta-3-flash';
const PNG = 'iVBORw0KGgo=';
/** A fetcher standing in for the network: every URL is a PNG, except `refused`. */
const fetcher = {
  fetch: async (url: string) => {
    if (url.includes('refused')) throw new ImageFetchError('the URL resolves to 10.0.0.1, a private address');
    return { mediaType: 'image/png', data: Buffer.from(PNG, 'base64') };
  },
} as unknown as GuardedFetcher;

/** Signatures kept in a store of this file's (in memory), on a clock the test moves. */
const store = await withPluginStates(SqliteStore.open(':memory:'));
t.teardown(() => store.close());
const clock = new FakeClock();
const newSignatures = (): ThoughtSignatures => new ThoughtSignatures(store.signatures, clock, pino({ level: 'silent' }));
const services = (signatures = newSignatures()): BetaServices => ({ apiKey: 'beta-key', embeddingModel: 'beta-embedding-001', fetcher, signatures });
const translator = (body: string, options: Partial<CallOptions> = {}, shared = services()): BetaTranslator =>
  new BetaTranslator(makeCall(JSON.parse(body), { model: MODEL, ...options }), shared);
const upstreamBody = async (body: string, options: Partial<CallOptions> = {}): Promise<unknown> =>
  JSON.parse((await translator(body, options).request()).body.toString());
const refusal = async (body: string, options: Partial<CallOptions> = {}): Promise<GatewayError> =>
  (await translator(body, options)
    .request()
    .catch((e: unknown) => e)) as GatewayError;

t.test('request mapping, reference → beta', async (t) => {
  const plain = await translator('{"messages":[{"role":"user","content":"Hi"}]}').request();
  t.equal(plain.path, 'v1beta/models/beta-3-flash:generateContent', 'model is the path segment, not in the body');
  t.same(plain.headers, { 'content-type': 'application/json', accept: 'application/json', 'x-goog-api-key': 'beta-key' }, 'auth header');
  const streamed = await translator('{"stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Hi"}]}', {
    stream: true,
    includeUsage: true,
  }).request();
  t.equal(streamed.path, 'v1beta/models/beta-3-flash:streamGenerateContent?alt=sse', 'stream → the SSE URL');
  t.same(JSON.parse(streamed.body.toString()), { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] }, 'stream and stream_options stay in the gateway');

  const rows: Array<[string, string, string]> = [
    [
      'system/developer hoisted into systemInstruction; user string → text part',
      '{"messages":[{"role":"system","content":"A"},{"role":"user","content":"Hi"},{"role":"developer","content":"B"}]}',
      '{"contents":[{"role":"user","parts":[{"text":"Hi"}]}],"systemInstruction":{"parts":[{"text":"A"},{"text":"B"}]}}',
    ],
    [
      'text parts (empty dropped), data URL → inlineData, https URL fetched → inlineData, detail auto asks nothing',
      '{"messages":[{"role":"user","content":[{"type":"text","text":"a"},{"type":"text","text":""},{"type":"image_url","image_url":{"url":"data:image/jpeg;base64,/9j/4A==","detail":"auto"}},{"type":"image_url","image_url":{"url":"https://example.com/cat.png"}}]}]}',
      `{"contents":[{"role":"user","parts":[{"text":"a"},{"inlineData":{"mimeType":"image/jpeg","data":"/9j/4A=="}},{"inlineData":{"mimeType":"image/png","data":"${PNG}"}}]}]}`,
    ],
    [
      'assistant content → model turn; tool_calls → functionCall (args parsed, id kept, placeholder signature on the first); tool messages → one user turn of functionResponses named after their calls',
      '{"messages":[{"role":"user","content":"Go"},{"role":"assistant","content":"Checking.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"f","arguments":"{\\"x\\":1}"}},{"id":"call_2","type":"function","function":{"name":"g","arguments":""}}]},{"role":"tool","tool_call_id":"call_1","content":"{\\"temp\\":4}"},{"role":"tool","tool_call_id":"call_2","content":"plain text"}]}',
      '{"contents":[{"role":"user","parts":[{"text":"Go"}]},{"role":"model","parts":[{"text":"Checking."},{"functionCall":{"name":"f","args":{"x":1},"id":"call_1"},"thoughtSignature":"skip_thought_signature_validator"},{"functionCall":{"name":"g","args":{},"id":"call_2"}}]},{"role":"user","parts":[{"functionResponse":{"name":"f","id":"call_1","response":{"output":{"temp":4}}}},{"functionResponse":{"name":"g","id":"call_2","response":{"output":"plain text"}}}]}]}',
    ],
    [
      'tools → functionDeclarations with JSON Schema; tool_choice auto → AUTO; parallel_tool_calls dropped',
      '{"tools":[{"type":"function","function":{"name":"f","description":"d","parameters":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}}},{"type":"function","function":{"name":"g"}}],"tool_choice":"auto","parallel_tool_calls":false,"messages":[{"role":"user","content":"x"}]}',
      '{"contents":[{"role":"user","parts":[{"text":"x"}]}],"tools":[{"functionDeclarations":[{"name":"f","description":"d","parametersJsonSchema":{"type":"object","properties":{"a":{"type":"string"}},"additionalProperties":false}},{"name":"g"}]}],"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}}',
    ],
    [
      'tool_choice none → NONE',
      '{"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"none","messages":[{"role":"user","content":"x"}]}',
      '{"contents":[{"role":"user","parts":[{"text":"x"}]}],"tools":[{"functionDeclarations":[{"name":"f"}]}],"toolConfig":{"functionCallingConfig":{"mode":"NONE"}}}',
    ],
    [
      'tool_choice required → ANY',
      '{"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"required","messages":[{"role":"user","content":"x"}]}',
      '{"contents":[{"role":"user","parts":[{"text":"x"}]}],"tools":[{"functionDeclarations":[{"name":"f"}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}}',
    ],
    [
      'named function → ANY + allowedFunctionNames',
      '{"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"function","function":{"name":"f"}},"messages":[{"role":"user","content":"x"}]}',
      '{"contents":[{"role":"user","parts":[{"text":"x"}]}],"tools":[{"functionDeclarations":[{"name":"f"}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["f"]}}}',
    ],
    [
      'json_object → responseMimeType',
      '{"response_format":{"type":"json_object"},"messages":[{"role":"user","content":"x"}]}',
      '{"contents":[{"role":"user","parts":[{"text":"x"}]}],"generationConfig":{"responseMimeType":"application/json"}}',
    ],
    [
      'json_schema → responseMimeType + responseJsonSchema (the name is not sent)',
      '{"response_format":{"type":"json_schema","json_schema":{"name":"c","schema":{"type":"object","properties":{"a":{"type":"integer"}}}}},"messages":[{"role":"user","content":"x"}]}',
      '{"contents":[{"role":"user","parts":[{"text":"x"}]}],"generationConfig":{"responseMimeType":"application/json","responseJsonSchema":{"type":"object","properties":{"a":{"type":"integer"}}}}}',
    ],
    [
      'stop string → stopSequences array; max_completion_tokens preferred → maxOutputTokens; temperature 0–2; top_p → topP; n → candidateCount; seed; penalties; user dropped; logprobs → responseLogprobs/logprobs',
      '{"stop":"END","max_tokens":50,"max_completion_tokens":20,"temperature":1.7,"top_p":0.9,"n":3,"seed":7,"presence_penalty":0.5,"frequency_penalty":-0.5,"user":"u-1","logprobs":true,"top_logprobs":3,"messages":[{"role":"user","content":"x"}]}',
      '{"contents":[{"role":"user","parts":[{"text":"x"}]}],"generationConfig":{"maxOutputTokens":20,"temperature":1.7,"topP":0.9,"stopSequences":["END"],"candidateCount":3,"seed":7,"presencePenalty":0.5,"frequencyPenalty":-0.5,"responseLogprobs":true,"logprobs":3}}',
    ],
    [
      'max_tokens alone, consecutive user turns merged',
      '{"max_tokens":5,"messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}]}',
      '{"contents":[{"role":"user","parts":[{"text":"a"},{"text":"b"}]}],"generationConfig":{"maxOutputTokens":5}}',
    ],
    [
      'legacy completion → one user turn',
      '{"model":"beta-3-flash","prompt":["Once"],"max_tokens":5}',
      '{"contents":[{"role":"user","parts":[{"text":"Once"}]}],"generationConfig":{"maxOutputTokens":5}}',
    ],
  ];
  for (const [label, reference, beta] of rows) {
    t.same(await upstreamBody(reference, label.startsWith('legacy') ? { endpoint: 'completions' } : {}), JSON.parse(beta), label);
  }

  const n = await refusal('{"n":9,"messages":[{"role":"user","content":"x"}]}');
  t.match(n, { status: 400, param: 'n' }, 'candidateCount is 1–8');
  const image = await refusal(
    '{"messages":[{"role":"user","content":[{"type":"text","text":"x"},{"type":"image_url","image_url":{"url":"https://refused.example/cat.png"}}]}]}',
  );
  t.match(image, { status: 400, param: 'messages[0].content[1]', message: /was refused: the URL resolves to 10\.0\.0\.1/ }, 'a refused image names its part');
  const nine = JSON.stringify({
    messages: [{ role: 'user', content: Array.from({ length: 9 }, () => ({ type: 'image_url', image_url: { url: 'https://example.com/a.png' } })) }],
  });
  t.match(await refusal(nine), { status: 400, param: 'messages[0].content[8]' }, 'at most 8 remote images');
  t.match(await refusal('{"model":"beta-3-flash","prompt":"x","echo":true}', { endpoint: 'completions' }), { status: 400, param: 'echo' });
  t.match(await refusal('{"model":"beta-3-flash","prompt":["a","b"]}', { endpoint: 'completions' }), { status: 400, param: 'prompt' });
});

t.test('embeddings, reference ⇄ beta batchEmbedContents', async (t) => {
  const tr = translator('{"model":"beta-3-flash","input":["a","b"],"encoding_format":"base64","dimensions":2}', { endpoint: 'embeddings' });
  const request = await tr.request();
  t.equal(request.path, 'v1beta/models/beta-embedding-001:batchEmbedContents');
  t.same(
    JSON.parse(request.body.toString()),
    JSON.parse(
      '{"requests":[{"model":"models/beta-embedding-001","content":{"parts":[{"text":"a"}]},"outputDimensionality":2},{"model":"models/beta-embedding-001","content":{"parts":[{"text":"b"}]},"outputDimensionality":2}]}',
    ),
  );
  const out = tr.response(Buffer.from('{"embeddings":[{"values":[0.5,1.0]},{"values":[-2,0.25]}]}'));
  t.same(
    JSON.parse(String(out.body)),
    JSON.parse(
      '{"object":"list","model":"beta-3-flash","data":[{"object":"embedding","index":0,"embedding":"AAAAPwAAgD8="},{"object":"embedding","index":1,"embedding":"AAAAwAAAgD4="}],"usage":{"prompt_tokens":2,"total_tokens":2}}',
    ),
    'base64 little-endian float32, in input order',
  );
  const floats = translator('{"model":"beta-3-flash","input":"a"}', { endpoint: 'embeddings' });
  await floats.request();
  t.same(JSON.parse(String(floats.response(Buffer.from('{"embeddings":[{"values":[0.5,1.0]}]}')).body)).data[0].embedding, [0.5, 1], 'floats by default');
  t.match(
    thrown(() => floats.response(Buffer.from('{"embeddings":[]}'))),
    { status: 502 },
    "a count mismatch is the upstream's fault",
  );
  t.match(await refusal('{"model":"beta-3-flash","input":[1,2]}', { endpoint: 'embeddings' }), { status: 400, param: 'input[0]' }, 'token ids are refused');
});

const respond = async (beta: string, options: Partial<CallOptions> = {}, shared = services()): Promise<{ body: any; raw: any; usage: unknown; call: Call }> => {
  const call = makeCall({ messages: [{ role: 'user', content: 'x' }] }, { model: MODEL, ...options });
  const tr = new BetaTranslator(call, shared);
  await tr.request();
  const out = tr.response(Buffer.from(beta));
  return { body: JSON.parse(unsealedText(fixedIds(String(out.body)))), raw: JSON.parse(String(out.body)), usage: out.usage, call };
};

t.test('response mapping, beta → reference', async (t) => {
  const signatures = newSignatures();
  const out = await respond(
    '{"candidates":[{"content":{"role":"model","parts":[{"text":"thinking…","thought":true},{"text":"Lima "},{"text":"is warm."},{"functionCall":{"name":"get_weather","args":{"city":"Lima"}},"thoughtSignature":"CpwBAdHt"},{"functionCall":{"name":"get_time","args":{},"id":"fc_9"}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":118,"candidatesTokenCount":9,"thoughtsTokenCount":41,"toolUsePromptTokenCount":2,"cachedContentTokenCount":100,"totalTokenCount":170},"modelVersion":"gemini-x","responseId":"b3dW"}',
    {},
    services(signatures),
  );
  t.same(
    out.body,
    JSON.parse(
      '{"id":"chatcmpl-ID","object":"chat.completion","created":1767225600,"model":"beta-3-flash","choices":[{"index":0,"message":{"role":"assistant","content":"Lima is warm.","refusal":null,"reasoning_content":"thinking…","thinking_blocks":[{"type":"thinking","thinking":"thinking…","signature":"sealed(beta.thought_signature.CpwBAdHt)"}],"tool_calls":[{"id":"call_ID","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Lima\\"}"}},{"id":"fc_9","type":"function","function":{"name":"get_time","arguments":"{}"}}]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":120,"completion_tokens":50,"total_tokens":170,"prompt_tokens_details":{"cached_tokens":100},"completion_tokens_details":{"reasoning_tokens":41}}}',
    ),
    "thoughts → reasoning_content, the first call's signature → thinking_blocks, text joined, functionCall → tool_calls (vendor id kept, else minted), STOP + calls → tool_calls, usage formula, canonical model",
  );
  t.equal(out.usage && (out.usage as { promptTokens: number }).promptTokens, 120);

  const finishes: Array<[string, string]> = [
    ['STOP', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['BLOCKLIST', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['SPII', 'content_filter'],
    ['IMAGE_SAFETY', 'content_filter'],
    ['LANGUAGE', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['MALFORMED_FUNCTION_CALL', 'stop'],
    ['UNEXPECTED_TOOL_CALL', 'stop'],
    ['TOO_MANY_TOOL_CALLS', 'stop'],
    ['OTHER', 'stop'],
    ['FINISH_REASON_UNSPECIFIED', 'stop'],
  ];
  for (const [reason, finish] of finishes) {
    const body = (
      await respond(
        `{"candidates":[{"content":{"role":"model","parts":[{"text":"x"}]},"finishReason":"${reason}","index":0}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`,
      )
    ).body;
    t.equal(body.choices[0].finish_reason, finish, `${reason} → ${finish}`);
  }
  const blocked = (await respond('{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":4,"totalTokenCount":4}}')).body;
  t.same(
    blocked.choices,
    [{ index: 0, message: { role: 'assistant', content: null, refusal: null }, logprobs: null, finish_reason: 'content_filter' }],
    'a blocked prompt → content_filter with content null',
  );
  const candidates = (
    await respond(
      '{"candidates":[{"content":{"parts":[{"text":"b"}]},"finishReason":"STOP","index":1},{"content":{"parts":[{"text":"a"}]},"finishReason":"MAX_TOKENS","index":0}],"usageMetadata":{}}',
    )
  ).body;
  t.same(
    candidates.choices.map((c: any) => [c.index, c.message.content, c.finish_reason]),
    [
      [0, 'a', 'length'],
      [1, 'b', 'stop'],
    ],
    'candidates[i] → choices[i]',
  );
  const logprobs = (
    await respond(
      '{"candidates":[{"content":{"parts":[{"text":"Hi"}]},"finishReason":"STOP","index":0,"logprobsResult":{"topCandidates":[{"candidates":[{"token":"Hi","logProbability":-0.1},{"token":"Yo","logProbability":-2.5}]}],"chosenCandidates":[{"token":"Hi","logProbability":-0.1}]}}]}',
    )
  ).body;
  t.same(
    logprobs.choices[0].logprobs,
    JSON.parse(
      '{"content":[{"token":"Hi","logprob":-0.1,"bytes":[72,105],"top_logprobs":[{"token":"Hi","logprob":-0.1,"bytes":[72,105]},{"token":"Yo","logprob":-2.5,"bytes":[89,111]}]}],"refusal":null}',
    ),
    'logprobsResult → logprobs',
  );

  // The signature the vendor gave for a call is replayed with that call.
  await signatures.settled(out.call);
  const minted = out.raw.choices[0].message.tool_calls[0].id as string;
  t.equal((await signatures.known(out.call, [minted])).get(minted)?.signature, 'CpwBAdHt', 'the signature is kept under the minted id');
  t.match(
    thrown(() => translator('{"messages":[{"role":"user","content":"x"}]}').response(Buffer.from('nope'))),
    { status: 502 },
    'garbage → 502',
  );
});

t.test('thought signatures are kept per key and call id in the store, replayed by any translator, forgotten after a day', async (t) => {
  const signatures = newSignatures();
  const first = await respond(
    '{"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{},"id":"fc_1"},"thoughtSignature":"SIG1"}]},"finishReason":"STOP","index":0}]}',
    {},
    services(signatures),
  );
  t.equal(first.body.choices[0].message.tool_calls[0].id, 'fc_1');
  await signatures.settled(first.call);
  const followUp =
    '{"messages":[{"role":"user","content":"x"},{"role":"assistant","tool_calls":[{"id":"fc_1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"fc_1","content":"ok"}]}';
  // Another instance: its own ThoughtSignatures on the same store.
  const replay = JSON.parse((await translator(followUp, {}, services(newSignatures())).request()).body.toString());
  t.equal(replay.contents[1].parts[0].thoughtSignature, 'SIG1', 'replayed by another instance');
  clock.advance(SIGNATURE_TTL_MS);
  const late = JSON.parse((await translator(followUp, {}, services(newSignatures())).request()).body.toString());
  t.equal(late.contents[1].parts[0].thoughtSignature, 'skip_thought_signature_validator', 'a day later: the placeholder');
});

/** The beta stream example of docs/vendor-formats.md#beta-stream, literally, plus a parallel call split over chunks. */
const BETA_STREAM = `data: {"candidates":[{"content":{"role":"model","parts":[{"text":"Oslo is "}]},"index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":3,"totalTokenCount":43},"modelVersion":"gemini-2.5-flash","responseId":"Zx1"}

data: {"candidates":[{"content":{"role":"model","parts":[{"text":"musing","thought":true},{"text":"4 °C today."}]},"index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":9,"totalTokenCount":49},"modelVersion":"gemini-2.5-flash","responseId":"Zx1"}

data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Oslo"},"id":"fc_1"},"thoughtSignature":"SIG"}]},"index":0}],"modelVersion":"gemini-2.5-flash","responseId":"Zx1"}

data: {"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":"Lima"},"id":"fc_2"}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":29,"thoughtsTokenCount":5,"totalTokenCount":74},"modelVersion":"gemini-2.5-flash","responseId":"Zx1"}

`;

const CHUNK = '"id":"chatcmpl-ID","object":"chat.completion.chunk","created":1767225600,"model":"beta-3-flash"';

t.test('streaming, beta chunks → reference chunks', async (t) => {
  const out = unsealedText(fixedIds(runStream(translator('{"messages":[{"role":"user","content":"x"}]}', { stream: true, includeUsage: true }), BETA_STREAM)));
  t.equal(
    out,
    `data: {${CHUNK},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":null}

data: {${CHUNK},"choices":[{"index":0,"delta":{"content":"Oslo is "},"logprobs":null,"finish_reason":null}],"usage":null}

data: {${CHUNK},"choices":[{"index":0,"delta":{"reasoning_content":"musing"},"logprobs":null,"finish_reason":null}],"usage":null}

data: {${CHUNK},"choices":[{"index":0,"delta":{"content":"4 °C today."},"logprobs":null,"finish_reason":null}],"usage":null}

data: {${CHUNK},"choices":[{"index":0,"delta":{"thinking_blocks":[{"type":"thinking","thinking":"musing","signature":"sealed(beta.thought_signature.SIG)"}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {${CHUNK},"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"fc_1","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Oslo\\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {${CHUNK},"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"fc_2","type":"function","function":{"name":"get_weather","arguments":"{\\"city\\":\\"Lima\\"}"}}]},"logprobs":null,"finish_reason":null}],"usage":null}

data: {${CHUNK},"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":null}

data: {${CHUNK},"choices":[],"usage":{"prompt_tokens":40,"completion_tokens":34,"total_tokens":74,"completion_tokens_details":{"reasoning_tokens":5}}}

`,
    'first chunk → role; text → content; thought → reasoning_content; a signature → thinking_blocks before its call; each functionCall whole with a running index; STOP + calls → tool_calls; last usageMetadata; body end → usage chunk',
  );

  const quiet = frames(runStream(translator('{"messages":[{"role":"user","content":"x"}]}', { stream: true }), BETA_STREAM)) as Array<Record<string, unknown>>;
  t.ok(quiet.every((chunk) => !('usage' in chunk)) && quiet.length === 8, 'no usage without include_usage');

  const two = frames(
    runStream(
      translator('{"n":2,"messages":[{"role":"user","content":"x"}]}', { stream: true }),
      `data: {"candidates":[{"content":{"parts":[{"text":"a"}]},"index":0},{"content":{"parts":[{"text":"b"}]},"index":1}]}

data: {"candidates":[{"content":{"parts":[{"text":"c"}]},"finishReason":"STOP","index":0},{"content":{"parts":[]},"finishReason":"MAX_TOKENS","index":1}]}

`,
    ),
  ) as Array<{ choices: Array<{ index: number; delta: { role?: string; content?: string }; finish_reason: string | null }> }>;
  t.same(
    two.map((c) => [c.choices[0]?.index, c.choices[0]?.delta.role ?? c.choices[0]?.delta.content ?? c.choices[0]?.finish_reason]),
    [
      [0, 'assistant'],
      [0, 'a'],
      [1, 'assistant'],
      [1, 'b'],
      [0, 'c'],
      [0, 'stop'],
      [1, 'length'],
    ],
    'one role and one finish per candidate',
  );

  const blocked = frames(
    runStream(translator('{"messages":[{"role":"user","content":"x"}]}', { stream: true }), 'data: {"promptFeedback":{"blockReason":"SAFETY"}}\r\n\r\n'),
  ) as any[];
  t.same(
    blocked.map((c) => c.choices[0].finish_reason),
    [null, 'content_filter'],
    'a blocked prompt streams role then content_filter',
  );

  const cut = translator('{"messages":[{"role":"user","content":"x"}]}', { stream: true }).stream();
  cut.event({ data: '{"candidates":[{"content":{"parts":[{"text":"a"}]},"index":0}],"usageMetadata":{"promptTokenCount":4,"candidatesTokenCount":1}}' });
  t.same(cut.usage, { promptTokens: 4, completionTokens: 1 }, "the vendor's running count");
  t.match(
    thrown(() => cut.end()),
    { status: 502 },
    'a body that ends before a finish reason is an error',
  );
  const error = thrown(() => cut.event({ data: '{"error":{"code":503,"message":"The model is overloaded.","status":"UNAVAILABLE"}}' })) as GatewayError;
  t.same(
    error.toEnvelope(),
    { error: { message: 'The beta upstream failed mid-stream: The model is overloaded.', type: 'unavailable', code: 'service_unavailable', param: null } },
    'an error chunk → our envelope',
  );

  const legacy = frames(
    fixedIds(
      runStream(
        translator('{"model":"beta-3-flash","prompt":"x"}', { endpoint: 'completions', stream: true }),
        BETA_STREAM.split('\n\n').slice(0, 2).join('\n\n') +
          '\n\ndata: {"candidates":[{"content":{"parts":[{"text":"!"}]},"finishReason":"STOP","index":0}]}\n\n',
      ),
    ),
  );
  t.same(
    legacy,
    [
      JSON.parse(
        '{"id":"cmpl-ID","object":"text_completion","created":1767225600,"model":"beta-3-flash","choices":[{"text":"Oslo is ","index":0,"logprobs":null,"finish_reason":null}]}',
      ),
      JSON.parse(
        '{"id":"cmpl-ID","object":"text_completion","created":1767225600,"model":"beta-3-flash","choices":[{"text":"4 °C today.","index":0,"logprobs":null,"finish_reason":null}]}',
      ),
      JSON.parse(
        '{"id":"cmpl-ID","object":"text_completion","created":1767225600,"model":"beta-3-flash","choices":[{"text":"!","index":0,"logprobs":null,"finish_reason":null}]}',
      ),
      JSON.parse(
        '{"id":"cmpl-ID","object":"text_completion","created":1767225600,"model":"beta-3-flash","choices":[{"text":"","index":0,"logprobs":null,"finish_reason":"stop"}]}',
      ),
    ],
    'legacy stream',
  );
});

t.test('errors, beta → our envelope', async (t) => {
  const rows: Array<[number, string, number, string, string]> = [
    [400, 'INVALID_ARGUMENT', 400, 'invalid_request', 'invalid_request'],
    [400, 'FAILED_PRECONDITION', 400, 'invalid_request', 'invalid_request'],
    [402, 'RESOURCE_EXHAUSTED', 502, 'upstream_error', 'bad_gateway'],
    [403, 'PERMISSION_DENIED', 502, 'upstream_error', 'bad_gateway'],
    [404, 'NOT_FOUND', 404, 'not_found', 'model_not_found'],
    [429, 'RESOURCE_EXHAUSTED', 429, 'rate_limited', 'rate_limit_exceeded'],
    [500, 'INTERNAL', 502, 'upstream_error', 'bad_gateway'],
    [503, 'UNAVAILABLE', 503, 'unavailable', 'service_unavailable'],
    [504, 'DEADLINE_EXCEEDED', 504, 'upstream_timeout', 'upstream_timeout'],
  ];
  const tr = translator('{"messages":[{"role":"user","content":"x"}]}');
  for (const [status, googleStatus, ours, type, code] of rows) {
    const error = tr.error(
      status,
      { 'retry-after': '3' },
      Buffer.from(`{"error":{"code":${status},"message":"vendor says ${googleStatus}","status":"${googleStatus}"}}`),
    );
    t.same([error.status, error.type, error.code], [ours, type, code], `${status} ${googleStatus} → ${ours}`);
    if (status === 402 || status === 403) {
      // Our own credential or account: vendors echo the key they were sent, so nothing of theirs is relayed.
      t.equal(error.message, "The beta upstream refused the gateway's own credentials or account. This is a gateway configuration problem, not your key.");
    } else {
      t.match(error.message, `vendor says ${googleStatus}`);
    }
    t.same(error.headers, { 'retry-after': '3' });
  }
  const badKey = tr.error(
    400,
    {},
    Buffer.from(
      '{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID"}]}}',
    ),
  );
  t.same([badKey.status, badKey.type], [502, 'upstream_error'], 'API_KEY_INVALID (a 400 on the wire) is our credential, not the caller');
  const array = tr.error(429, {}, Buffer.from('[{"error":{"code":429,"message":"Quota","status":"RESOURCE_EXHAUSTED"}}]'));
  t.same([array.status, array.message], [429, 'Quota'], 'the JSON-array framing is read too');
  const long = tr.error(
    400,
    {},
    Buffer.from(
      '{"error":{"code":400,"message":"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).","status":"INVALID_ARGUMENT"}}',
    ),
  );
  t.equal(long.code, 'context_length_exceeded');
  const garbage = tr.error(500, {}, Buffer.from('upstream connect error'));
  t.same([garbage.status, garbage.message], [502, 'The beta upstream answered 500 without a readable error message.']);
});

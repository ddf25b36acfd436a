import OpenAI from 'openai';
import t from 'tap';
import {
  collect,
  jsonMode,
  legacyCompletions,
  midStreamFailures,
  plainAndStreamed,
  post,
  toolRoundTrip,
  WEATHER_TOOLS,
  mappedErrors,
} from '../helpers/chat-scenarios.js';
import { BETA_UPSTREAM_KEY, startHarness, type Harness } from '../helpers/harness.js';
import { CA_FILE, PNG_BASE64, startImageServer } from '../helpers/image-server.js';

type APIError = InstanceType<typeof OpenAI.APIError>;
const MODEL = 'beta-3.1-pro';

const lastUpstream = (h: Harness) => {
  const seen = h.beta.requests.at(-1);
  return { path: seen?.path, headers: seen?.headers ?? {}, body: JSON.parse(seen?.body ?? '{}') };
};

/** The harness with the loopback image host opened to the beta plugin's guarded fetcher. */
const withImageHost = (h: { plugins: Array<{ name: string; config: Record<string, unknown> }> }): void => {
  const beta = h.plugins.find((p) => p.name === 'vendor-beta');
  if (beta) beta.config = { remote_images: { allow_cidrs: ['127.0.0.1/32'], ca_file: CA_FILE } };
};

t.test('beta through the official client: replies, streams, usage, alias, length, candidates', async (t) => {
  const h = await startHarness(t);
  const client = h.client((await h.createKey()).key);
  await plainAndStreamed(t, client, MODEL, 'beta-3.1-pro-preview');
  t.equal(lastUpstream(h).path, '/v1beta/models/beta-3.1-pro:streamGenerateContent?alt=sse', 'streams ask for SSE');

  await client.chat.completions.create({
    model: 'BETA-3.1-pro-preview ',
    temperature: 1.5,
    top_p: 0.9,
    stop: 'END',
    seed: 7,
    presence_penalty: 0.5,
    frequency_penalty: 0.25,
    user: 'u-1',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello.' },
      { role: 'user', content: 'Bye' },
    ],
  });
  const upstream = lastUpstream(h);
  t.equal(upstream.path, '/v1beta/models/beta-3.1-pro:generateContent', 'the model is a path segment');
  t.equal(upstream.headers['x-goog-api-key'], BETA_UPSTREAM_KEY, "the gateway's own beta key");
  t.notOk(upstream.headers.authorization);
  t.same(upstream.body, {
    contents: [
      { role: 'user', parts: [{ text: 'Hi' }] },
      { role: 'model', parts: [{ text: 'Hello.' }] },
      { role: 'user', parts: [{ text: 'Bye' }] },
    ],
    systemInstruction: { parts: [{ text: 'Be brief.' }] },
    generationConfig: { temperature: 1.5, topP: 0.9, stopSequences: ['END'], seed: 7, presencePenalty: 0.5, frequencyPenalty: 0.25 },
  });

  const two = await client.chat.completions.create({ model: MODEL, n: 2, messages: [{ role: 'user', content: 'x [[sim:tokens=2]]' }] });
  t.same(
    two.choices.map((c) => [c.index, c.message.content]),
    [
      [0, 'Hello from'],
      [1, 'Hello from'],
    ],
    'n → candidateCount, one choice per candidate',
  );
  t.equal(lastUpstream(h).body.generationConfig.candidateCount, 2);
  const twoStreamed = await collect(
    await client.chat.completions.create({ model: MODEL, n: 2, stream: true, messages: [{ role: 'user', content: 'x [[sim:tokens=2]]' }] }),
  );
  for (const index of [0, 1]) {
    const mine = twoStreamed.filter((c) => c.choices[0]?.index === index);
    t.equal(mine[0]?.choices[0]?.delta.role, 'assistant', `choice ${index} starts with its role`);
    t.equal(mine.filter((c) => c.choices[0]?.finish_reason === 'stop').length, 1, `choice ${index} finishes once`);
  }

  const logprobs = await client.chat.completions.create({
    model: MODEL,
    logprobs: true,
    top_logprobs: 2,
    messages: [{ role: 'user', content: 'x [[sim:tokens=2]]' }],
  });
  t.same(
    logprobs.choices[0]?.logprobs?.content?.[0],
    {
      token: 'Hello',
      logprob: -0.5,
      bytes: [...Buffer.from('Hello')],
      top_logprobs: [
        { token: 'Hello', logprob: -0.5, bytes: [...Buffer.from('Hello')] },
        { token: 'Hello1', logprob: -1.5, bytes: [...Buffer.from('Hello1')] },
      ],
    },
    'logprobs → responseLogprobs, logprobsResult → logprobs',
  );
});

t.test('beta tool round trips, plain and streamed, two parallel calls', async (t) => {
  const h = await startHarness(t);
  const client = h.client((await h.createKey()).key);
  for (const streamed of [false, true]) {
    const calls = await toolRoundTrip(t, client, MODEL, streamed);
    t.ok(
      calls.every((call) => /^call_[A-Za-z0-9]{24}$/.test(call.id)),
      'ids minted where the vendor gave none',
    );
    const replay = lastUpstream(h).body;
    const [modelTurn, results] = [replay.contents[1], replay.contents[2]];
    t.equal(modelTurn.role, 'model');
    t.same(
      modelTurn.parts.map((p: { functionCall: unknown }) => p.functionCall),
      calls.map((c) => ({ name: 'get_weather', args: { city: 'sample' }, id: c.id })),
    );
    t.match(modelTurn.parts[0].thoughtSignature, /^[A-Za-z0-9+/=]{20,}$/, "the vendor's own thought signature is replayed");
    t.not(modelTurn.parts[0].thoughtSignature, 'skip_thought_signature_validator');
    t.same(
      results,
      {
        role: 'user',
        parts: calls.map((c, i) => ({ functionResponse: { name: 'get_weather', id: c.id, response: { output: { temp_c: i ? 19 : 4 } } } })),
      },
      'results grouped in one user turn, named after their calls',
    );
    t.same(replay.tools, [
      {
        functionDeclarations: [{ name: 'get_weather', description: 'Current weather for a city', parametersJsonSchema: WEATHER_TOOLS[0]?.function.parameters }],
      },
    ]);
  }
  // History the gateway never saw gets the vendor's placeholder signature, and the vendor accepts it.
  const foreign = await client.chat.completions.create({
    model: MODEL,
    tools: WEATHER_TOOLS,
    tool_choice: 'required',
    messages: [
      { role: 'user', content: 'x' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_01', type: 'function', function: { name: 'get_weather', arguments: '' } }] },
      { role: 'tool', tool_call_id: 'toolu_01', content: 'sunny' },
    ],
  });
  t.equal(foreign.choices[0]?.finish_reason, 'stop');
  const sent = lastUpstream(h).body;
  t.equal(sent.contents[1].parts[0].thoughtSignature, 'skip_thought_signature_validator');
  t.same(sent.contents[2].parts[0].functionResponse.response, { output: 'sunny' }, 'a non-JSON result goes as text');
  t.same(sent.toolConfig, { functionCallingConfig: { mode: 'ANY' } });
  await client.chat.completions.create({
    model: MODEL,
    tools: WEATHER_TOOLS,
    tool_choice: { type: 'function', function: { name: 'get_weather' } },
    messages: [{ role: 'user', content: 'x' }],
  });
  t.same(lastUpstream(h).body.toolConfig, { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['get_weather'] } });
});

t.test('beta images: data URLs inline, remote URLs fetched through the guarded fetcher', async (t) => {
  const image = await startImageServer(t);
  const h = await startHarness(t, { configure: (config) => withImageHost(config) });
  const client = h.client((await h.createKey()).key);
  const reply = await client.chat.completions.create({
    model: MODEL,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
          { type: 'image_url', image_url: { url: `${image.origin}/cat.png`, detail: 'auto' } },
        ],
      },
    ],
  });
  t.equal(reply.choices[0]?.finish_reason, 'stop');
  t.same(
    lastUpstream(h).body.contents[0].parts,
    [{ text: 'Compare these' }, { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } }, { inlineData: { mimeType: 'image/png', data: PNG_BASE64 } }],
    'both images reach the vendor as inline bytes',
  );
  t.same(image.hits, ['/cat.png'], 'the remote image was fetched once');

  const before = h.beta.requests.length;
  const redirected = await client.chat.completions
    .create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'image_url', image_url: { url: `${image.origin}/to-other-loopback` } },
          ],
        },
      ],
    })
    .catch((e: unknown) => e);
  t.equal((redirected as APIError).status, 400, 'a redirect to a refused address is refused');
  t.equal((redirected as APIError).param, 'messages[0].content[1]', 'naming the part');
  t.match((redirected as Error).message, /127\.0\.0\.2/);
  const nine = Array.from({ length: 9 }, () => ({ type: 'image_url' as const, image_url: { url: `${image.origin}/cat.png` } }));
  const tooMany = await client.chat.completions.create({ model: MODEL, messages: [{ role: 'user', content: nine }] }).catch((e: unknown) => e);
  t.equal((tooMany as APIError).param, 'messages[0].content[8]', 'at most 8 remote images per request');
  t.equal(h.beta.requests.length, before, 'refused images never reach the vendor');

  // The shipped configuration: loopback is refused, whatever the certificate.
  const strict = await startHarness(t);
  const strictClient = strict.client((await strict.createKey()).key);
  const refused = await strictClient.chat.completions
    .create({
      model: MODEL,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'image_url', image_url: { url: `${image.origin}/cat.png` } },
          ],
        },
      ],
    })
    .catch((e: unknown) => e);
  t.equal((refused as APIError).status, 400);
  t.equal((refused as APIError).param, 'messages[0].content[1]');
  t.match((refused as Error).message, /non-public address/);
  t.same(image.hits, ['/cat.png', '/to-other-loopback'], 'nothing was fetched from the refused address, and too many images are refused before fetching');
});

t.test('beta JSON mode, embeddings, legacy completions', async (t) => {
  const h = await startHarness(t);
  const client = h.client((await h.createKey()).key);
  await jsonMode(t, client, MODEL);
  t.same(
    lastUpstream(h).body.generationConfig,
    {
      responseMimeType: 'application/json',
      responseJsonSchema: {
        type: 'object',
        additionalProperties: false,
        properties: { city: { type: 'string' }, population: { type: 'integer' } },
        required: ['city', 'population'],
      },
    },
    'JSON mode is native: mime type and JSON Schema (the name is not sent)',
  );

  const embedded = await client.embeddings.create({ model: MODEL, input: ['alpha', 'beta'] });
  t.equal(embedded.model, MODEL);
  t.same(
    embedded.data.map((d) => d.index),
    [0, 1],
  );
  t.equal(embedded.data[0]?.embedding.length, 8);
  t.same(
    embedded.usage,
    { prompt_tokens: 3, total_tokens: 3 },
    'the vendor reports no embedding tokens: the estimate, a token per 4 characters of each input ("alpha" 2, "beta" 1)',
  );
  const upstream = lastUpstream(h);
  t.equal(upstream.path, '/v1beta/models/beta-embedding-001:batchEmbedContents', "routed to the family's embedding model");
  t.same(
    upstream.body.requests.map((r: { model: string }) => r.model),
    ['models/beta-embedding-001', 'models/beta-embedding-001'],
  );
  const floats = await client.embeddings.create({ model: 'beta-3-flash', input: 'alpha', encoding_format: 'float', dimensions: 4 });
  t.same(floats.data[0]?.embedding, embedded.data[0]?.embedding.slice(0, 4), 'float and base64 agree; dimensions honoured');
  t.equal(lastUpstream(h).body.requests[0].outputDimensionality, 4);
  const raw = (await (
    await fetch(`${h.baseURL}/embeddings`, {
      method: 'POST',
      headers: { authorization: `Bearer ${(await h.createKey()).key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: MODEL, input: 'alpha', encoding_format: 'base64' }),
    })
  ).json()) as { data: Array<{ embedding: string }> };
  const decoded = Buffer.from(raw.data[0]?.embedding ?? '', 'base64');
  t.same(
    Array.from({ length: decoded.length / 4 }, (_, i) => decoded.readFloatLE(i * 4)),
    embedded.data[0]?.embedding,
    'base64 is little-endian float32',
  );

  await legacyCompletions(t, client, MODEL);
});

t.test('beta errors mapped to our envelope, mid-stream failures end in an error event', async (t) => {
  // The mapping of one upstream answer, so no retries here (test/e2e/retry.test.ts has them).
  const h = await startHarness(t, { env: { GATEWAY_RETRY_MAX: '0' } });
  const { key } = await h.createKey();
  const client = h.client(key);
  await mappedErrors(t, h, key, h.beta, MODEL, [
    { fault: { status: 400 }, status: 400, type: 'invalid_request' },
    { fault: { status: 400, errorType: 'FAILED_PRECONDITION' }, status: 400, type: 'invalid_request' },
    { fault: { status: 401 }, status: 502, type: 'upstream_error' },
    { fault: { status: 402 }, status: 502, type: 'upstream_error' },
    { fault: { status: 403 }, status: 502, type: 'upstream_error' },
    { fault: { status: 404 }, status: 404, type: 'not_found', code: 'model_not_found' },
    { fault: { status: 429, retryAfter: '7' }, status: 429, type: 'rate_limited', code: 'rate_limit_exceeded' },
    { fault: { status: 500 }, status: 502, type: 'upstream_error' },
    { fault: { status: 503 }, status: 503, type: 'unavailable' },
    { fault: { status: 504 }, status: 504, type: 'upstream_timeout' },
    { fault: { status: 503, rawBody: 'upstream connect error' }, status: 503, type: 'unavailable' },
    { fault: { status: 200, rawBody: 'not json' }, status: 502, type: 'upstream_error' },
  ]);
  h.beta.faults.push({ status: 401 });
  const badKey = await post(h, key, '/v1/chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'x' }] });
  t.match(badKey.json.error.message, /gateway's own credentials/, 'a bad upstream key (a 400 API_KEY_INVALID on the wire) is our problem, not the caller');
  t.notMatch(badKey.json.error.message, /API key not valid/, "and the vendor's message about our key is not relayed");
  h.beta.faults.push({ status: 429 });
  const limited = await post(h, key, '/v1/chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'x' }] });
  t.equal(limited.json.error.message, 'simulated 429', "the vendor's message is kept");

  await midStreamFailures(t, client, MODEL, /beta upstream failed mid-stream: simulated failure/);
});

t.test('a follow-up tool call replays the thought signature on another instance, and after a restart', async (t) => {
  const first = await startHarness(t);
  // A second instance on the same database file and the same beta upstream.
  const shared = { env: { GATEWAY_DB: first.dbPath }, beta: first.beta };
  const second = await startHarness(t, shared);
  const key = (await first.createKey()).key;
  const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: 'user', content: 'Weather in Oslo? [[sim:parallel=1]]' }];
  const asked = await first.client(key).chat.completions.stream({ model: MODEL, tools: WEATHER_TOOLS, messages }).finalChatCompletion();
  const calls = asked.choices[0]?.message.tool_calls ?? [];
  t.equal(calls.length, 1);
  const followUp: OpenAI.ChatCompletionMessageParam[] = [
    ...messages,
    { role: 'assistant', content: null, tool_calls: calls },
    { role: 'tool', tool_call_id: calls[0]?.id ?? '', content: '{"temp_c":4}' },
  ];
  const replayedBy = async (h: Harness): Promise<string> => {
    await h.client(key).chat.completions.create({ model: MODEL, tools: WEATHER_TOOLS, messages: followUp });
    return lastUpstream(first).body.contents[1].parts[0].thoughtSignature as string;
  };
  const onSecond = await replayedBy(second);
  t.match(onSecond, /^[A-Za-z0-9+/=]{20,}$/, "the other instance replays the vendor's signature");
  t.not(onSecond, 'skip_thought_signature_validator');
  await second.close();
  const restarted = await startHarness(t, shared);
  t.equal(await replayedBy(restarted), onSecond, 'so does an instance started again afterwards, the same one');
});

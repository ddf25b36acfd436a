import OpenAI from 'openai';
import t from 'tap';
import {
  jsonMode,
  legacyCompletions,
  midStreamFailures,
  plainAndStreamed,
  post,
  toolRoundTrip,
  WEATHER_TOOLS,
  mappedErrors,
} from '../helpers/chat-scenarios.js';
import { ALPHA_UPSTREAM_KEY, startHarness } from '../helpers/harness.js';
import { PNG_BASE64 } from '../helpers/image-server.js';

type APIError = InstanceType<typeof OpenAI.APIError>;
const MODEL = 'alpha-sonnet-4.6';

const lastUpstream = (h: { alpha: { requests: Array<{ path: string; headers: Record<string, unknown>; body: string }> } }) => {
  const seen = h.alpha.requests.at(-1);
  return { path: seen?.path, headers: seen?.headers ?? {}, body: JSON.parse(seen?.body ?? '{}') };
};

t.test('alpha through the official client: replies, streams, usage, alias, length', async (t) => {
  const h = await startHarness(t);
  const client = h.client((await h.createKey()).key);
  await plainAndStreamed(t, client, MODEL, 'alpha-sonnet-4-6');

  await client.chat.completions.create({
    model: MODEL,
    temperature: 0.2,
    top_p: 0.9,
    stop: 'END',
    user: 'u-1',
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'developer', content: 'Answer in English.' },
      { role: 'user', content: 'Hi' },
      { role: 'user', content: [{ type: 'text', text: 'there' }] },
    ],
  });
  const upstream = lastUpstream(h);
  t.equal(upstream.path, '/v1/messages');
  t.equal(upstream.headers['x-api-key'], ALPHA_UPSTREAM_KEY, "the gateway's own alpha key");
  t.equal(upstream.headers['anthropic-version'], '2023-06-01');
  t.notOk(upstream.headers['authorization'], 'no bearer credential upstream');
  t.same(
    upstream.body,
    {
      model: MODEL,
      max_tokens: 128000,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Hi' },
            { type: 'text', text: 'there' },
          ],
        },
      ],
      system: [
        { type: 'text', text: 'Be brief.' },
        { type: 'text', text: 'Answer in English.' },
      ],
      stop_sequences: ['END'],
      temperature: 0.2,
      top_p: 0.9,
      metadata: { user_id: 'u-1' },
    },
    'system hoisted, turns merged, max_tokens from the catalogue',
  );
});

t.test('alpha tool round trips, plain and streamed, two parallel calls', async (t) => {
  const h = await startHarness(t);
  const client = h.client((await h.createKey()).key);
  for (const streamed of [false, true]) {
    const calls = await toolRoundTrip(t, client, MODEL, streamed);
    t.ok(
      calls.every((call) => call.id.startsWith('toolu_')),
      'alpha tool ids pass through unchanged',
    );
    const body = lastUpstream(h).body;
    t.same(body.messages[1], {
      role: 'assistant',
      content: calls.map((call) => ({ type: 'tool_use', id: call.id, name: 'get_weather', input: { city: 'sample' } })),
    });
    t.same(
      body.messages[2].content.map((b: { type: string; tool_use_id: string }) => [b.type, b.tool_use_id]),
      calls.map((c) => ['tool_result', c.id]),
      'results grouped in one user turn',
    );
    t.same(body.tools, [{ name: 'get_weather', description: 'Current weather for a city', input_schema: WEATHER_TOOLS[0]?.function.parameters }]);
  }
  await client.chat.completions.create({
    model: MODEL,
    tools: WEATHER_TOOLS,
    tool_choice: { type: 'function', function: { name: 'get_weather' } },
    parallel_tool_calls: false,
    messages: [{ role: 'user', content: 'x' }],
  });
  t.same(lastUpstream(h).body.tool_choice, { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true });
});

t.test('alpha images, JSON mode, embeddings, legacy completions, refusals', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const client = h.client(key);
  const url = 'https://images.example.com/cat.jpg';
  const reply = await client.chat.completions.create({
    model: MODEL,
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'What is this?' },
          { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}`, detail: 'auto' } },
          { type: 'image_url', image_url: { url } },
        ],
      },
    ],
  });
  t.equal(reply.choices[0]?.finish_reason, 'stop');
  t.same(
    lastUpstream(h).body.messages[0].content.slice(1),
    [
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
      { type: 'image', source: { type: 'url', url } },
    ],
    'a data URL goes as base64, a remote URL passes through (alpha fetches it), detail auto asks nothing',
  );
  // Refusals happen in the gateway, before any upstream request.
  const refused = async (attempt: () => Promise<unknown>): Promise<APIError> => {
    const before = h.alpha.requests.length;
    const error = await attempt().catch((e: unknown) => e);
    t.equal(h.alpha.requests.length, before, 'refused before the upstream');
    return error as APIError;
  };
  const bmp = await refused(() =>
    client.chat.completions.create({
      model: MODEL,
      messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/bmp;base64,Qk0=' } }] }],
    }),
  );
  t.equal(bmp.status, 400);
  t.equal(bmp.param, 'messages[0].content[0]');

  await jsonMode(t, client, MODEL);
  const forced = lastUpstream(h).body;
  t.same(
    [forced.output_config?.format?.type, forced.tool_choice],
    ['json_schema', undefined],
    'a JSON schema goes natively upstream (output_config.format), no forced tool',
  );

  const embeddings = await refused(() => client.embeddings.create({ model: MODEL, input: 'x' }));
  t.equal(embeddings.status, 400, 'alpha has no embedding model');
  t.equal(embeddings.param, 'model');
  t.match((embeddings as Error).message, /alpha-sonnet-4\.6/);

  await legacyCompletions(t, client, MODEL);

  const two = await refused(() => client.chat.completions.create({ model: MODEL, n: 2, messages: [{ role: 'user', content: 'x' }] }));
  t.equal(two.status, 400);
  t.equal(two.param, 'n');
  const hot = await refused(() => client.chat.completions.create({ model: MODEL, temperature: 1.5, messages: [{ role: 'user', content: 'x' }] }));
  t.equal(hot.param, 'temperature');
  const unanswered = await refused(() =>
    client.chat.completions.create({
      model: MODEL,
      tools: WEATHER_TOOLS,
      messages: [
        { role: 'user', content: 'x' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
        { role: 'user', content: 'y' },
      ],
    }),
  );
  t.equal(unanswered.status, 400, 'an unanswered tool call is refused');
  t.equal(unanswered.param, 'messages');
});

t.test('alpha errors mapped to our envelope, mid-stream failures end in an error event', async (t) => {
  // The mapping of one upstream answer, so no retries here (test/e2e/retry.test.ts has them).
  const h = await startHarness(t, { env: { GATEWAY_RETRY_MAX: '0' } });
  const { key } = await h.createKey();
  const client = h.client(key);
  await mappedErrors(t, h, key, h.alpha, MODEL, [
    { fault: { status: 400 }, status: 400, type: 'invalid_request' },
    { fault: { status: 401 }, status: 502, type: 'upstream_error' },
    { fault: { status: 403 }, status: 502, type: 'upstream_error' },
    { fault: { status: 404 }, status: 404, type: 'not_found', code: 'model_not_found' },
    { fault: { status: 413 }, status: 413, type: 'payload_too_large' },
    { fault: { status: 429, retryAfter: '7' }, status: 429, type: 'rate_limited', code: 'rate_limit_exceeded' },
    { fault: { status: 500 }, status: 502, type: 'upstream_error' },
    { fault: { status: 529 }, status: 503, type: 'unavailable' },
    { fault: { status: 500, errorType: 'overloaded_error' }, status: 503, type: 'unavailable' },
    { fault: { status: 504 }, status: 504, type: 'upstream_timeout' },
    { fault: { status: 502, rawBody: '<html>bad gateway</html>' }, status: 502, type: 'upstream_error' },
    { fault: { status: 200, rawBody: 'not json' }, status: 502, type: 'upstream_error' },
  ]);
  h.alpha.faults.push({ status: 400, errorType: 'invalid_request_error' });
  const tooLong = await post(h, key, '/v1/chat/completions', { model: MODEL, messages: [{ role: 'user', content: 'x' }] });
  t.equal(tooLong.status, 400);
  t.notMatch(JSON.stringify(tooLong.json), ALPHA_UPSTREAM_KEY, 'the upstream key never shows');

  await midStreamFailures(t, client, MODEL, /alpha upstream failed mid-stream: simulated failure/);
});

import t, { type Test } from 'tap';
import { startHarness, type Harness } from '../helpers/harness.js';
import { startPostgres } from '../helpers/postgres.js';

/**
 * "Clients as shipped" on /v1/responses, through the gateway and the simulators: the request
 * Codex CLI sends first (a developer message, a namespace tool, a hosted web_search tool,
 * function tools, client_metadata, store: false, include, prompt_cache_key, reasoning summary
 * auto, a stream) answered on every family with the hosted tool announced as left out; a
 * namespace function's call named back and replayed; and the AI SDK's item_reference loop on
 * both stores. Under `parameters: strict` the adjusted request is a 400.
 */

type Json = Record<string, any>;
const MODELS = { alpha: 'alpha-sonnet-4.6', beta: 'beta-3-flash', gamma: 'gamma-5.4' } as const;
type Family = keyof typeof MODELS;
const FAMILIES = Object.keys(MODELS) as Family[];

const EXEC = {
  type: 'function',
  name: 'exec_command',
  description: 'Runs a command.',
  parameters: { type: 'object', properties: { cmd: { type: 'string' } }, required: ['cmd'] },
  strict: false,
};
const SPAWN = {
  type: 'function',
  name: 'spawn_agent',
  description: 'Starts an agent.',
  parameters: { type: 'object', properties: { task: { type: 'string' } } },
  strict: false,
};
const AGENTS = { type: 'namespace', name: 'multi_agent', description: 'Agents.', tools: [SPAWN] };

/** Codex CLI 0.171's first request, as observed: the base prompt as a developer message, no instructions. */
const codexFirst = (model: string, tools: Json[] = [EXEC, AGENTS, { type: 'web_search' }]): Json => ({
  model,
  input: [
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are a coding agent.' }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files.' }] },
  ],
  tools,
  tool_choice: 'auto',
  parallel_tool_calls: false,
  reasoning: { summary: 'auto' },
  store: false,
  stream: true,
  include: ['reasoning.encrypted_content'],
  prompt_cache_key: 'conv-0199',
  client_metadata: { installation_id: 'inst-1', conversation_id: 'conv-0199', thread_id: 'th-1', turn_id: 'turn-1' },
});

async function post(h: Harness, key: string, body: Json): Promise<{ status: number; headers: Headers; text: string }> {
  const res = await fetch(`${h.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** The data of each event of a Responses stream. */
const events = (sse: string): Json[] =>
  sse
    .split('\n\n')
    .map((frame) => frame.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => JSON.parse(line.slice(6)) as Json);

const lastUpstream = (h: Harness, family: Family): Json => JSON.parse(h[family].requests.at(-1)?.body ?? '{}') as Json;

/** The function names each family's request offers. */
const offeredNames = (family: Family, body: Json): string[] =>
  family === 'beta'
    ? (body['tools']?.[0]?.functionDeclarations ?? []).map((f: Json) => f['name'])
    : (body['tools'] ?? []).map((tool: Json) => tool['name'] ?? tool['function']?.name);

t.test("Codex CLI's first request: answered on every family, web_search left out and announced, namespace flattened, bookkeeping not forwarded", async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  for (const family of FAMILIES) {
    const got = await post(h, key, codexFirst(MODELS[family]));
    t.equal(got.status, 200, `${family}: answered (${got.text.slice(0, 200)})`);
    t.equal(got.headers.get('x-gateway-adjusted'), 'tools[2]=omitted:web_search', `${family}: the hosted tool announced`);
    const upstream = lastUpstream(h, family);
    t.same(offeredNames(family, upstream), ['exec_command', 'multi_agent__spawn_agent'], `${family}: the functions offered, the namespace's flattened`);
    t.notMatch(
      h[family].requests.at(-1)?.body ?? '',
      /inst-1|conv-0199|web_search/,
      `${family}: client_metadata, the cache key and the hosted tool are not sent`,
    );
    const terminal = events(got.text).at(-1) as Json;
    t.equal(terminal['type'], 'response.completed', `${family}: the stream completes`);
    t.equal(terminal['response'].store, false);
  }
});

t.test('under parameters: strict the same request is a 400 naming the hosted tool, before any upstream call', async (t) => {
  const h = await startHarness(t, { env: { GATEWAY_PARAMETERS: 'strict' } });
  const { key } = await h.createKey();
  for (const family of FAMILIES) {
    const got = await post(h, key, { ...codexFirst(MODELS[family]), stream: false });
    t.equal(got.status, 400, family);
    t.match(JSON.parse(got.text), { error: { param: 'tools[2]', message: /'web_search' tools are not run by any family here/ } });
    t.equal(h[family].requests.length, 0, `${family}: no upstream request`);
  }
  const without = await post(h, key, { ...codexFirst(MODELS.gamma, [EXEC, AGENTS]), stream: false });
  t.equal(without.status, 200, 'without the hosted tool nothing is adjusted: strict answers as lenient does');
});

t.test('a tool_choice that forces a tool left out is refused; one that forces a namespaced function is mapped', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const forced = await post(h, key, { ...codexFirst(MODELS.gamma), stream: false, tool_choice: { type: 'web_search' } });
  t.equal(forced.status, 400);
  t.match(JSON.parse(forced.text), { error: { param: 'tool_choice', message: /forces a 'web_search' tool, which is not offered/ } });
  const named = await post(h, key, {
    ...codexFirst(MODELS.gamma),
    stream: false,
    tool_choice: { type: 'function', namespace: 'multi_agent', name: 'spawn_agent' },
  });
  t.equal(named.status, 200);
  t.same(lastUpstream(h, 'gamma')['tool_choice'], { type: 'function', function: { name: 'multi_agent__spawn_agent' } });
});

t.test("a namespace function's call comes back with its name and namespace, streamed and whole, and goes back flattened", async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  for (const family of FAMILIES) {
    // The simulator calls the first tool offered.
    const body: Json = { ...codexFirst(MODELS[family], [AGENTS, EXEC]), store: true };
    const whole = await post(h, key, { ...body, stream: false });
    t.equal(whole.status, 200, family);
    const response = JSON.parse(whole.text) as Json;
    const call = response['output'].find((item: Json) => item['type'] === 'function_call') as Json;
    t.match(call, { name: 'spawn_agent', namespace: 'multi_agent' }, `${family}: whole reply`);

    const streamed = events((await post(h, key, body)).text);
    const added = streamed.find((event) => event['type'] === 'response.output_item.added' && event['item'].type === 'function_call') as Json;
    const argumentsDone = streamed.find((event) => event['type'] === 'response.function_call_arguments.done') as Json;
    const done = streamed.find((event) => event['type'] === 'response.output_item.done' && event['item'].type === 'function_call') as Json;
    t.match(added['item'], { name: 'spawn_agent', namespace: 'multi_agent' }, `${family}: stream, item added`);
    t.equal(argumentsDone['name'], 'spawn_agent', `${family}: stream, arguments done`);
    t.match(done['item'], { name: 'spawn_agent', namespace: 'multi_agent' }, `${family}: stream, item done`);

    // Codex replays the call as it got it, with its output: the vendor sees the flattened name again.
    const replay = await post(h, key, {
      ...body,
      stream: false,
      input: [
        ...body['input'],
        { type: 'function_call', call_id: call['call_id'], name: 'spawn_agent', namespace: 'multi_agent', arguments: call['arguments'] },
        { type: 'function_call_output', call_id: call['call_id'], output: 'spawned' },
      ],
    });
    t.equal(replay.status, 200, `${family}: the replayed call is answered`);
    t.match(
      h[family].requests.at(-1)?.body,
      /multi_agent__spawn_agent[\s\S]*multi_agent__spawn_agent/,
      `${family}: the call goes back under the flattened name`,
    );
    // And a continued stored response replays it too.
    const continued = await post(h, key, {
      model: MODELS[family],
      previous_response_id: response['id'],
      input: [{ type: 'function_call_output', call_id: call['call_id'], output: 'spawned' }],
      tools: [AGENTS, EXEC],
    });
    t.equal(continued.status, 200, `${family}: continued with previous_response_id (${continued.text.slice(0, 200)})`);
  }
});

/** The AI SDK's second step: the earlier answer as an item_reference, on a gateway of `env`'s store. */
async function itemReferenceLoop(t: Test, env: Record<string, string>): Promise<void> {
  const h = await startHarness(t, { env });
  const { key } = await h.createKey();
  const { key: otherKey } = await h.createKey();
  const first = JSON.parse((await post(h, key, { model: MODELS.gamma, input: 'Remember the apple.' })).text) as Json;
  const message = first['output'].find((item: Json) => item['type'] === 'message') as Json;
  const text = message['content'][0].text as string;
  for (const family of FAMILIES) {
    const next = await post(h, key, {
      model: MODELS[family],
      input: [
        { role: 'user', content: 'Remember the apple.' },
        { type: 'item_reference', id: message['id'] },
        { role: 'user', content: 'What was it?' },
      ],
    });
    t.equal(next.status, 200, `${family}: answered (${next.text.slice(0, 200)})`);
    t.match(h[family].requests.at(-1)?.body, text, `${family}: the referenced answer reaches the vendor`);
    const stored = JSON.parse(next.text) as Json;
    const continued = await post(h, key, { model: MODELS[family], previous_response_id: stored['id'], input: 'And now?' });
    t.equal(continued.status, 200, `${family}: a response with a resolved reference continues`);
    t.match(h[family].requests.at(-1)?.body, text, `${family}: the stored input holds the item, not the reference`);
  }
  const unstored = JSON.parse((await post(h, key, { model: MODELS.gamma, input: 'Not kept.', store: false })).text) as Json;
  const refusals: Array<[string, string, string]> = [
    ['an unknown id', key, 'msg_nope'],
    ['an id of the right shape, never minted', key, `${message['id'].slice(0, -1)}z`],
    ["another key's item", otherKey, message['id']],
    ['an item of a store: false response', key, unstored['output'][0].id],
  ];
  for (const [what, caller, id] of refusals) {
    const before = h.gamma.requests.length;
    const got = await post(h, caller, {
      model: MODELS.gamma,
      input: [
        { role: 'user', content: 'Hi' },
        { type: 'item_reference', id },
      ],
    });
    t.equal(got.status, 400, what);
    t.same(
      JSON.parse(got.text),
      { error: { type: 'invalid_request', code: 'item_not_found', param: 'input[1]', message: `Item with id '${id}' not found.` } },
      `${what}: the answer`,
    );
    t.equal(h.gamma.requests.length, before, `${what}: no upstream request`);
  }
}

t.test('item_reference on SQLite', async (t) => itemReferenceLoop(t, {}));

t.test('item_reference on PostgreSQL', async (t) => {
  const server = await startPostgres(t);
  await itemReferenceLoop(t, { GATEWAY_DATABASE_URL: await server.createDatabase() });
});

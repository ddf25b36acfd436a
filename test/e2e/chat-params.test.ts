import t from 'tap';
import { legacyEnvelope, openedBy } from '../helpers/reasoning-seal.js';
import { CHAT_PARAMETERS } from '../../plugins/ingress-chat/params.js';
import { WEATHER_TOOLS } from '../helpers/chat-scenarios.js';
import { dig, digObject, type Json } from '../helpers/dig.js';
import { adjustedAsSaid, cellsOf, refusedAsSaid, tableRows as rowsOf, type Family } from '../helpers/param-table.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { PNG_BASE64 } from '../helpers/image-server.js';

/**
 * docs/formats/chat.md's parameter table, held to the code: for every row and family a chat
 * request with the parameter goes through the real gateway and what it does is compared with the
 * cell — refused: a 400 naming it and no upstream request; accepted, no effect: a 200 and the
 * upstream request the one without it; mapped or passed through: what reaches the upstream is
 * what the cell says (passed through: the caller's value, unchanged). Every parameter the gateway
 * knows has a row, and one it does not know is refused for alpha and beta and passed to gamma.
 */

const FAMILIES: readonly Family[] = ['alpha', 'beta', 'gamma'];
const EPHEMERAL = { type: 'ephemeral' };
/** One breakpoint more than alpha takes. */
const FIVE_MARKED = ['one', 'two', 'three', 'four', 'five'].map((text) => ({ type: 'text', text, cache_control: EPHEMERAL }));
const MODELS: Record<Family, string> = { alpha: 'alpha-sonnet-4.6', beta: 'beta-3-flash', gamma: 'gamma-5.4' };
const HELLO = [{ role: 'user', content: 'Hello there' }];

interface Upstream {
  path: string;
  body: Json;
}
type Check = (upstream: Upstream, reply: Json | null) => [actual: unknown, expected: unknown];
interface Probe {
  body: Json | ((family: Family) => Json);
  /** The parameter a 400 names, when it is not the row's. */
  param?: string;
  /** What "no effect" compares with, when not the plain request. */
  without?: () => Json;
  mapped?: Partial<Record<Family, Check>>;
}

const generation =
  (field: string, value: unknown): Check =>
  (u) => [dig(u.body, 'generationConfig', field), value];
const field =
  (name: string, value: unknown): Check =>
  (u) => [u.body[name], value];
/** Real states, made by the simulators in the test's first calls (they verify their own): the blocks as replied, their raw states, a tool-call history. */
const made = { history: [] as Json[], alpha: {} as Json, beta: {} as Json, alphaRaw: '', betaRaw: '' };
/** The history, its assistant message handing back `extra`. */
const handingBack = (extra: Json): Json => ({
  tools: WEATHER_TOOLS,
  messages: made.history.map((message, i) => (i === 1 ? { ...message, ...extra } : message)),
});
const history = (): Json => handingBack({});
/** A conversation with an earlier answer, its assistant message carrying `extra`. */
const answered = (extra: Json): Json => ({ messages: [HELLO[0], { role: 'assistant', content: 'Hello.', ...extra }, { role: 'user', content: 'More' }] });

/** A JSON schema format with one more field of `json_schema`: relayed unchanged to gamma, mapped for alpha and beta as `mapped` says. */
const jsonSchemaProbe = (name: string, value: unknown, mapped: Partial<Record<Family, Check>>): Probe => ({
  body: { response_format: { type: 'json_schema', json_schema: { name: 'greeting', schema: { type: 'object' }, [name]: value } } },
  param: `response_format.json_schema.${name}`,
  mapped: { gamma: (u) => [dig(u.body, 'response_format', 'json_schema', name), value], ...mapped },
});
/** The greeting schema as alpha's `output_config.format` (closed) and beta's `responseJsonSchema`, with `extra`. */
const alphaFormat =
  (extra: Json = {}): Check =>
  (u) => [dig(u.body, 'output_config', 'format'), { type: 'json_schema', schema: { type: 'object', ...extra, properties: {}, additionalProperties: false } }];
const betaFormat = (extra: Json = {}): Check => generation('responseJsonSchema', { type: 'object', ...extra });

const PROBES: Record<string, Probe> = {
  model: {
    body: (family) => ({ model: { alpha: 'ALPHA-sonnet-4-6', beta: 'Beta-3-Flash', gamma: 'gamma-5-4' }[family] }),
    mapped: {
      alpha: field('model', 'alpha-sonnet-4.6'),
      beta: (u) => [u.path, '/v1beta/models/beta-3-flash:generateContent'],
      gamma: field('model', 'gamma-5.4'),
    },
  },
  messages: {
    body: {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Probe text' },
      ],
    },
    mapped: {
      alpha: (u) => [
        [u.body['system'], u.body['messages']],
        [[{ type: 'text', text: 'Be brief.' }], [{ role: 'user', content: [{ type: 'text', text: 'Probe text' }] }]],
      ],
      beta: (u) => [
        [u.body['systemInstruction'], u.body['contents']],
        [{ parts: [{ text: 'Be brief.' }] }, [{ role: 'user', parts: [{ text: 'Probe text' }] }]],
      ],
    },
  },
  'messages[].thinking_blocks': {
    body: () => handingBack({ thinking_blocks: [made.alpha, made.beta] }),
    without: history,
    mapped: {
      alpha: (u) => [dig(u.body, 'messages', 1, 'content', 0), { type: 'thinking', thinking: made.alpha['thinking'], signature: made.alphaRaw }],
      beta: (u) => [dig(u.body, 'contents', 1, 'parts', 0, 'thoughtSignature'), made.betaRaw],
    },
  },
  'messages[].refusal': {
    body: { messages: [HELLO[0], { role: 'assistant', content: null, refusal: 'I cannot.' }, { role: 'user', content: 'More' }] },
    mapped: {
      alpha: (u) => [dig(u.body, 'messages', 1, 'content'), [{ type: 'text', text: 'I cannot.' }]],
      beta: (u) => [dig(u.body, 'contents', 1, 'parts'), [{ text: 'I cannot.' }]],
      gamma: (u) => [dig(u.body, 'messages', 1, 'refusal'), 'I cannot.'],
    },
  },
  'messages[].annotations': {
    body: answered({ annotations: [{ type: 'url_citation', url_citation: { url: 'https://example.com/', title: 'E', start_index: 0, end_index: 5 } }] }),
    without: () => answered({}),
    mapped: { gamma: (u) => [dig(u.body, 'messages', 1, 'annotations', 0, 'type'), 'url_citation'] },
  },
  'messages[].name': {
    body: { messages: [{ ...HELLO[0], name: 'bob' }] },
    param: 'messages[0].name',
    without: () => ({ messages: HELLO }),
    mapped: { gamma: (u) => [dig(u.body, 'messages', 0, 'name'), 'bob'] },
  },
  'messages[].content[].image_url.detail': {
    body: { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}`, detail: 'high' } }] }] },
    param: 'messages[0].content[0].image_url.detail',
    without: () => ({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } }] }] }),
    mapped: { gamma: (u) => [dig(u.body, 'messages', 0, 'content', 0, 'image_url', 'detail'), 'high'] },
  },
  'messages[].content[].cache_control': {
    body: { messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there', cache_control: EPHEMERAL }] }] },
    without: () => ({ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello there' }] }] }),
    mapped: {
      alpha: (u) => [dig(u.body, 'messages', 0, 'content', 0, 'cache_control'), EPHEMERAL],
      gamma: (u) => [dig(u.body, 'messages', 0, 'content', 0, 'cache_control'), EPHEMERAL],
    },
  },
  'messages[].content[].cache_control: more than four': {
    body: { messages: [{ role: 'user', content: FIVE_MARKED }] },
    param: 'messages[0].content[0].cache_control',
    // What alpha is sent: the first breakpoint left out (beta: the same as without any).
    without: () => ({ messages: [{ role: 'user', content: [{ type: 'text', text: 'one' }, ...FIVE_MARKED.slice(1)] }] }),
    mapped: { gamma: (u) => [dig(u.body, 'messages', 0, 'content'), FIVE_MARKED] },
  },
  'tools[].cache_control': {
    body: { tools: [{ ...WEATHER_TOOLS[0], cache_control: EPHEMERAL }] },
    without: () => ({ tools: [WEATHER_TOOLS[0]] }),
    mapped: { alpha: (u) => [dig(u.body, 'tools', 0, 'cache_control'), EPHEMERAL], gamma: (u) => [dig(u.body, 'tools', 0, 'cache_control'), EPHEMERAL] },
  },
  'tools[].function.defer_loading': {
    body: { tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' }, defer_loading: true } }] },
    param: 'tools[0].function.defer_loading',
    mapped: { gamma: (u) => [dig(u.body, 'tools', 0, 'function', 'defer_loading'), true] },
  },
  'messages[].reasoning_content': { body: () => handingBack({ reasoning_content: 'Considering.' }), without: history },
  stream: {
    body: { stream: true },
    mapped: { alpha: field('stream', true), beta: (u) => [u.path, '/v1beta/models/beta-3-flash:streamGenerateContent?alt=sse'] },
  },
  stream_options: {
    body: { stream: true, stream_options: { include_usage: false } },
    mapped: {
      alpha: field('stream', true),
      beta: (u) => [u.path, '/v1beta/models/beta-3-flash:streamGenerateContent?alt=sse'],
      gamma: field('stream_options', { include_usage: true }),
    },
  },
  max_tokens: { body: { max_tokens: 50 }, mapped: { alpha: field('max_tokens', 50), beta: generation('maxOutputTokens', 50) } },
  max_completion_tokens: {
    body: { max_tokens: 80, max_completion_tokens: 50 },
    mapped: { alpha: field('max_tokens', 50), beta: generation('maxOutputTokens', 50) },
  },
  "max_tokens: over the model's maximum": { body: { max_tokens: 10_000_000 }, param: 'max_tokens' },
  "max_completion_tokens: over the model's maximum": { body: { max_completion_tokens: 10_000_000 }, param: 'max_completion_tokens' },
  temperature: { body: { temperature: 0.5 }, mapped: { alpha: field('temperature', 0.5), beta: generation('temperature', 0.5) } },
  top_p: { body: { top_p: 0.5 }, mapped: { alpha: field('top_p', 0.5), beta: generation('topP', 0.5) } },
  n: { body: { n: 2 }, mapped: { beta: generation('candidateCount', 2) } },
  stop: { body: { stop: 'END' }, mapped: { alpha: field('stop_sequences', ['END']), beta: generation('stopSequences', ['END']) } },
  seed: { body: { seed: 7 }, mapped: { beta: generation('seed', 7) } },
  presence_penalty: { body: { presence_penalty: 0.5 }, mapped: { beta: generation('presencePenalty', 0.5) } },
  frequency_penalty: { body: { frequency_penalty: 0.5 }, mapped: { beta: generation('frequencyPenalty', 0.5) } },
  logit_bias: { body: { logit_bias: { '50256': -100 } } },
  logprobs: { body: { logprobs: true }, mapped: { beta: generation('responseLogprobs', true) } },
  top_logprobs: { body: (family) => ({ top_logprobs: 2, ...(family === 'alpha' ? {} : { logprobs: true }) }), mapped: { beta: generation('logprobs', 2) } },
  user: { body: { user: 'u-1' }, mapped: { alpha: field('metadata', { user_id: 'u-1' }) } },
  safety_identifier: { body: { user: 'u-1', safety_identifier: 'safe-1' }, mapped: { alpha: field('metadata', { user_id: 'safe-1' }) } },
  tools: {
    body: { tools: WEATHER_TOOLS },
    mapped: {
      alpha: (u) => [dig(u.body, 'tools', 0, 'input_schema'), WEATHER_TOOLS[0]?.function.parameters],
      beta: (u) => [dig(u.body, 'tools', 0, 'functionDeclarations', 0, 'parametersJsonSchema'), WEATHER_TOOLS[0]?.function.parameters],
    },
  },
  'tools[].function.strict': {
    body: { tools: WEATHER_TOOLS.map((tool) => ({ ...tool, function: { ...tool.function, strict: true } })) },
    param: 'tools[0].function.strict',
    mapped: {
      alpha: (u) => [
        [dig(u.body, 'tools', 0, 'strict'), dig(u.body, 'tools', 0, 'input_schema', 'additionalProperties')],
        [true, false],
      ],
      beta: (u) => [
        [dig(u.body, 'toolConfig', 'functionCallingConfig', 'mode'), dig(u.body, 'tools', 0, 'functionDeclarations', 0, 'strict')],
        ['VALIDATED', undefined],
      ],
      gamma: (u) => [dig(u.body, 'tools', 0, 'function', 'strict'), true],
    },
  },
  tool_choice: {
    body: { tools: WEATHER_TOOLS, tool_choice: 'required' },
    mapped: { alpha: field('tool_choice', { type: 'any' }), beta: field('toolConfig', { functionCallingConfig: { mode: 'ANY' } }) },
  },
  parallel_tool_calls: {
    body: { tools: WEATHER_TOOLS, parallel_tool_calls: false, messages: [{ role: 'user', content: 'Weather? [[sim:parallel=2]]' }] },
    mapped: {
      alpha: field('tool_choice', { type: 'auto', disable_parallel_tool_use: true }),
      beta: (_, reply) => [dig(reply, 'choices', 0, 'message', 'tool_calls', 'length'), 1],
    },
  },
  response_format: {
    body: { response_format: { type: 'json_object' } },
    mapped: { alpha: (u) => [u.body['tool_choice'], { type: 'tool', name: 'json_response' }], beta: generation('responseMimeType', 'application/json') },
  },
  'response_format.json_schema.strict': jsonSchemaProbe('strict', true, { alpha: alphaFormat(), beta: betaFormat() }),
  'response_format.json_schema.description': jsonSchemaProbe('description', 'A greeting.', {
    alpha: alphaFormat({ description: 'A greeting.' }),
    beta: betaFormat({ description: 'A greeting.' }),
  }),
  reasoning_effort: {
    body: { reasoning_effort: 'low' },
    mapped: {
      alpha: (u) => [
        [u.body['thinking'], u.body['output_config']],
        [{ type: 'adaptive' }, { effort: 'low' }],
      ],
      beta: generation('thinkingConfig', { thinkingLevel: 'LOW', includeThoughts: true }),
    },
  },
  service_tier: { body: { service_tier: 'flex' } },
  store: { body: { store: true } },
  metadata: { body: { metadata: { team: 'a' } } },
  prediction: { body: { prediction: { type: 'content', content: 'Hello' } } },
  prompt_cache_key: { body: { prompt_cache_key: 'k-1' }, mapped: { alpha: field('cache_control', EPHEMERAL) } },
  prompt_cache_retention: { body: { prompt_cache_retention: '24h' }, mapped: { alpha: field('cache_control', { ...EPHEMERAL, ttl: '1h' }) } },
  modalities: { body: { modalities: ['text', 'audio'] } },
  audio: { body: { audio: { voice: 'alloy', format: 'wav' } } },
  web_search_options: { body: { web_search_options: {} }, without: () => ({}) },
  verbosity: { body: { verbosity: 'high' }, without: () => ({}) },
  functions: { body: { functions: [{ name: 'f', parameters: { type: 'object' } }] } },
  function_call: { body: { function_call: 'auto' } },
};

const tableRows = (): ReturnType<typeof rowsOf> => rowsOf('docs/formats/chat.md', 'chat-params');

async function send(
  h: Harness,
  key: string,
  family: Family,
  body: Json,
): Promise<{ status: number; json: Json | null; adjusted: string | null; upstream: Upstream | null }> {
  const sim = h[family];
  const before = sim.requests.length;
  const res = await fetch(`${h.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODELS[family], messages: HELLO, ...body }),
  });
  const text = await res.text();
  const seen = sim.requests.length > before ? sim.requests.at(-1) : undefined;
  return {
    status: res.status,
    json: text.startsWith('{') ? (JSON.parse(text) as Json) : null,
    adjusted: res.headers.get('x-gateway-adjusted'),
    upstream: seen ? { path: seen.path, body: JSON.parse(seen.body) as Json } : null,
  };
}

/** The simulators' own reasoning states, and a tool-call history to hand them back in. */
async function makeStates(h: Harness, keyId: string, key: string): Promise<void> {
  const question = [{ role: 'user', content: 'Weather?' }];
  const alpha = digObject((await send(h, key, 'alpha', { reasoning_effort: 'low', tools: WEATHER_TOOLS, messages: question })).json, 'choices', 0, 'message');
  const beta = digObject((await send(h, key, 'beta', { tools: WEATHER_TOOLS, messages: question })).json, 'choices', 0, 'message');
  // Handed back in the envelope every gateway reads: the samples run on two gateways (lenient and
  // strict), each with its own seal and keys.
  const legacy = async (block: Json): Promise<[Json, string]> => {
    const state = await openedBy(h.store, keyId, block['signature']);
    return [{ ...block, signature: state ? legacyEnvelope(state) : '' }, state?.data ?? ''];
  };
  [made.alpha, made.alphaRaw] = await legacy(digObject(alpha, 'thinking_blocks', 0));
  [made.beta, made.betaRaw] = await legacy(digObject(beta, 'thinking_blocks', 0));
  const call = digObject(beta, 'tool_calls', 0);
  made.history = [...question, { role: 'assistant', content: null, tool_calls: [call] }, { role: 'tool', tool_call_id: call['id'], content: 'sunny' }];
}

t.test('every known parameter has a row, every row a probe', async (t) => {
  const keys = tableRows().map((row) => row.key);
  t.same([...new Set(keys.map((key) => key.split(/[.[:]/)[0]))].sort(), [...CHAT_PARAMETERS].sort(), 'one or more rows per parameter, none unknown');
  t.same([...keys].sort(), Object.keys(PROBES).sort(), 'the probes below cover the rows exactly');
});

t.test('each cell of the table is what the gateway does', async (t) => {
  const h = await startHarness(t);
  const { id: keyId, key } = await h.createKey();
  // The same gateway under `parameters: strict`, where each adjusted row is refused instead.
  const strict = await startHarness(t, { env: { GATEWAY_PARAMETERS: 'strict' } });
  const { key: strictKey } = await strict.createKey();
  await makeStates(h, keyId, key);
  const baseline = Object.fromEntries(await Promise.all(FAMILIES.map(async (family) => [family, (await send(h, key, family, {})).upstream]))) as Record<
    Family,
    Upstream
  >;
  for (const { row, family, cell, category, probe, body, where } of cellsOf<Json, Probe>(tableRows(), PROBES)) {
    const got = await send(h, key, family, body);
    if (category === 'refused') {
      refusedAsSaid(t, where, got, probe.param ?? row);
      continue;
    }
    if (category === 'adjusted') {
      adjustedAsSaid(t, where, got, probe.param ?? row, cell);
      if (probe.without)
        t.same(got.upstream, (await send(h, key, family, probe.without())).upstream, `${where}: the upstream request is the one the cell says`);
      refusedAsSaid(t, `${where}, under parameters: strict`, await send(strict, strictKey, family, body), probe.param ?? row);
      continue;
    }
    t.equal(got.status, 200, `${where}: ${JSON.stringify(dig(got.json, 'error') ?? '')}`);
    if (category === 'accepted, no effect') {
      const plain = probe.without ? (await send(h, key, family, probe.without())).upstream : baseline[family];
      t.same(got.upstream, plain, `${where}: the upstream request is the one without it`);
      continue;
    }
    const check = probe.mapped?.[family] ?? (category === 'passed through' ? passedThrough(row, body) : undefined);
    if (!check || !got.upstream) {
      t.fail(`${where}: the probe has no check for this family`);
      continue;
    }
    const [actual, expected] = check(got.upstream, got.json);
    t.same(actual, expected, where);
  }
});

/** Passed through: the caller's value is in the upstream body, unchanged. */
const passedThrough =
  (row: string, body: Json): Check =>
  (u) => [u.body[row], body[row]];

t.test('a parameter the gateway does not know: refused for alpha and beta, passed to gamma', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  for (const family of FAMILIES) {
    const got = await send(h, key, family, { frobnicate: 3 });
    if (family === 'gamma') t.same([got.status, got.upstream?.body['frobnicate']], [200, 3], 'gamma: passed through');
    else t.same([got.status, dig(got.json, 'error', 'param'), got.upstream], [400, 'frobnicate', null], `${family}: refused naming it`);
  }
  t.same(
    (await send(h, key, 'alpha', { seed: null, logit_bias: {}, modalities: ['text'], verbosity: 'medium' })).status,
    200,
    'null and neutral values ask nothing',
  );
});

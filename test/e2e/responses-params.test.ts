import t from 'tap';
import { NO_EFFECT_PARAMETERS, RESPONSES_PARAMETERS } from '../../plugins/ingress-responses/schema.js';
import { adjustedAsSaid, cellsOf, refusedAsSaid, tableRows as rowsOf, type Family } from '../helpers/param-table.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { PNG_BASE64 } from '../helpers/image-server.js';

/**
 * docs/formats/responses.md's parameter table, held to the code: for every row and family, a
 * request with the parameter is sent through the real gateway and what it does is compared with
 * what the cell says — refused: a 400 naming it and no upstream request; accepted, no effect: a
 * 200 and the upstream request byte for byte the one without it; mapped: what reaches the
 * upstream (or the response) is what the cell names; adjusted: a 200 carrying the cell's
 * `x-gateway-adjusted` entry (and the upstream request of `without`, when given), and under
 * `parameters: strict` a 400 naming it. Every parameter the gateway knows has a row.
 */

type Json = Record<string, any>;
const FAMILIES: readonly Family[] = ['alpha', 'beta', 'gamma'];
const EPHEMERAL = { type: 'ephemeral' };
/** One breakpoint more than alpha takes. */
const FIVE_MARKED = ['one', 'two', 'three', 'four', 'five'].map((text) => ({ type: 'input_text', text, prompt_cache_breakpoint: EPHEMERAL }));
const MODELS: Record<Family, string> = { alpha: 'alpha-sonnet-4.6', beta: 'beta-3-flash', gamma: 'gamma-5.4' };

interface Upstream {
  path: string;
  body: Json;
}
interface Seen {
  status: number;
  /** The response object (null for a stream). */
  response: Json | null;
  upstream: Upstream;
}
type Check = (seen: Seen) => [actual: unknown, expected: unknown];
interface Probe {
  body: Json | ((family: Family) => Json);
  /** The parameter a 400 (or an adjusted row's header entry) names, when it is not the row's. */
  param?: string;
  /** For a no-effect row: the body whose upstream request it must equal (the plain request when absent); for an adjusted row, likewise when given. */
  without?: Json;
  mapped?: Partial<Record<Family, Check>>;
}

const each = (check: Check): Record<Family, Check> => ({ alpha: check, beta: check, gamma: check });
const WEATHER = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };
const SCHEMA = { type: 'object', properties: { answer: { type: 'string' } } };
const FORMAT = { type: 'json_schema', name: 'answer', schema: SCHEMA };
const image = (extra: Json): Json => ({ input: [{ role: 'user', content: [{ type: 'input_image', ...extra }] }] });
const generation =
  (field: string): Check =>
  (s) => [s.upstream.body['generationConfig']?.[field], 0.5];
/** A conversation with an earlier answer in it, its output_text part carrying `extra`, its message item `item`. */
const answered = (extra: Json, item: Json = {}): Json => ({
  input: [
    { role: 'user', content: 'Hi' },
    { type: 'message', role: 'assistant', ...item, content: [{ type: 'output_text', text: 'Hello', ...extra }] },
    { role: 'user', content: 'Again' },
  ],
});
const reasoned = (extra: Json): Json => ({
  input: [
    { role: 'user', content: 'Hi' },
    { type: 'reasoning', summary: [], ...extra },
    { role: 'assistant', content: 'Hello' },
    { role: 'user', content: 'Again' },
  ],
});
const cached = (extra: Json): Json => ({ input: [{ role: 'user', content: [{ type: 'input_text', text: 'Hello there', ...extra }] }] });
let storedId = '';
/** The id of that stored response's message. */
let storedItemId = '';

const PROBES: Record<string, Probe> = {
  model: {
    body: (family) => ({ model: { alpha: 'ALPHA-sonnet-4-6', beta: 'Beta-3-Flash', gamma: 'gamma-5-4' }[family] }),
    mapped: {
      alpha: (s) => [s.upstream.body['model'], 'alpha-sonnet-4.6'],
      beta: (s) => [s.upstream.path, '/v1beta/models/beta-3-flash:generateContent'],
      gamma: (s) => [s.upstream.body['model'], 'gamma-5.4'],
    },
  },
  input: {
    body: { input: [{ role: 'user', content: [{ type: 'input_text', text: 'Probe text' }] }] },
    mapped: {
      alpha: (s) => [s.upstream.body['messages'], [{ role: 'user', content: [{ type: 'text', text: 'Probe text' }] }]],
      beta: (s) => [s.upstream.body['contents'], [{ role: 'user', parts: [{ text: 'Probe text' }] }]],
      gamma: (s) => [s.upstream.body['messages'], [{ role: 'user', content: [{ type: 'text', text: 'Probe text' }] }]],
    },
  },
  instructions: {
    body: { instructions: 'Be brief.' },
    mapped: {
      alpha: (s) => [s.upstream.body['system'], [{ type: 'text', text: 'Be brief.' }]],
      beta: (s) => [s.upstream.body['systemInstruction'], { parts: [{ text: 'Be brief.' }] }],
      gamma: (s) => [s.upstream.body['messages'][0], { role: 'system', content: 'Be brief.' }],
    },
  },
  previous_response_id: {
    body: () => ({ previous_response_id: storedId }),
    mapped: {
      alpha: (s) => [s.upstream.body['messages'][0].content[0].text, 'Remember apple'],
      beta: (s) => [s.upstream.body['contents'][0].parts[0].text, 'Remember apple'],
      gamma: (s) => [s.upstream.body['messages'][0].content[0].text, 'Remember apple'],
    },
  },
  store: { body: { store: false }, mapped: each((s) => [s.response?.['store'], false]) },
  stream: {
    body: { stream: true },
    mapped: {
      alpha: (s) => [s.upstream.body['stream'], true],
      beta: (s) => [s.upstream.path, '/v1beta/models/beta-3-flash:streamGenerateContent?alt=sse'],
      gamma: (s) => [s.upstream.body['stream'], true],
    },
  },
  stream_options: { body: { stream_options: { include_obfuscation: false } } },
  "max_output_tokens: over the model's maximum": { body: { max_output_tokens: 10_000_000 }, param: 'max_output_tokens' },
  max_output_tokens: {
    body: { max_output_tokens: 50 },
    mapped: {
      alpha: (s) => [s.upstream.body['max_tokens'], 50],
      beta: (s) => [s.upstream.body['generationConfig'], { maxOutputTokens: 50 }],
      gamma: (s) => [s.upstream.body['max_completion_tokens'], 50],
    },
  },
  temperature: {
    body: { temperature: 0.5 },
    mapped: { alpha: (s) => [s.upstream.body['temperature'], 0.5], beta: generation('temperature'), gamma: (s) => [s.upstream.body['temperature'], 0.5] },
  },
  top_p: {
    body: { top_p: 0.5 },
    mapped: { alpha: (s) => [s.upstream.body['top_p'], 0.5], beta: generation('topP'), gamma: (s) => [s.upstream.body['top_p'], 0.5] },
  },
  tools: {
    body: { tools: [WEATHER] },
    mapped: {
      alpha: (s) => [s.upstream.body['tools'], [{ name: 'get_weather', input_schema: WEATHER.parameters }]],
      beta: (s) => [s.upstream.body['tools'], [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: WEATHER.parameters }] }]],
      // No strict given, the API's default: strict-compatible or not, written out (this schema is open: not).
      gamma: (s) => [s.upstream.body['tools'], [{ type: 'function', function: { name: 'get_weather', parameters: WEATHER.parameters, strict: false } }]],
    },
  },
  'tools[].type': { body: { tools: [WEATHER, { type: 'web_search' }] }, param: 'tools[1]', without: { tools: [WEATHER] } },
  'tools[].type: namespace': {
    body: { tools: [{ type: 'namespace', name: 'weather', description: 'Weather tools.', tools: [WEATHER] }] },
    mapped: {
      alpha: (s) => [s.upstream.body['tools'][0].name, 'weather__get_weather'],
      beta: (s) => [s.upstream.body['tools'][0].functionDeclarations[0].name, 'weather__get_weather'],
      gamma: (s) => [s.upstream.body['tools'][0].function.name, 'weather__get_weather'],
    },
  },
  'tools[].defer_loading': { body: { tools: [{ ...WEATHER, defer_loading: true }] }, param: 'tools[0]', without: { tools: [WEATHER] } },
  'tools[].strict': {
    body: { tools: [{ ...WEATHER, strict: true }] },
    param: 'tools[0].strict',
    mapped: {
      alpha: (s) => [
        [s.upstream.body['tools'][0].strict, s.upstream.body['tools'][0].input_schema.additionalProperties],
        [true, false],
      ],
      beta: (s) => [s.upstream.body['toolConfig'], { functionCallingConfig: { mode: 'VALIDATED' } }],
      gamma: (s) => [s.upstream.body['tools'][0].function.strict, true],
    },
  },
  tool_choice: {
    body: { tools: [WEATHER], tool_choice: 'required' },
    mapped: {
      alpha: (s) => [s.upstream.body['tool_choice'], { type: 'any' }],
      beta: (s) => [s.upstream.body['toolConfig'], { functionCallingConfig: { mode: 'ANY' } }],
      gamma: (s) => [s.upstream.body['tool_choice'], 'required'],
    },
  },
  'tool_choice.namespace': {
    body: { tools: [{ type: 'namespace', name: 'weather', tools: [WEATHER] }], tool_choice: { type: 'function', namespace: 'weather', name: 'get_weather' } },
    mapped: {
      alpha: (s) => [s.upstream.body['tool_choice'], { type: 'tool', name: 'weather__get_weather' }],
      beta: (s) => [s.upstream.body['toolConfig'].functionCallingConfig.allowedFunctionNames, ['weather__get_weather']],
      gamma: (s) => [s.upstream.body['tool_choice'], { type: 'function', function: { name: 'weather__get_weather' } }],
    },
  },
  'tool_choice.type': { body: { tools: [WEATHER, { type: 'web_search' }], tool_choice: { type: 'web_search' } }, param: 'tool_choice' },
  'tool_choice.type: allowed_tools': {
    body: {
      tools: [WEATHER, { ...WEATHER, name: 'get_time' }],
      tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'get_time' }] },
    },
    mapped: {
      alpha: (s) => [
        [s.upstream.body['tools'].map((tool: Json) => tool['name']), s.upstream.body['tool_choice']],
        [['get_time'], { type: 'any' }],
      ],
      beta: (s) => [
        [s.upstream.body['tools'][0].functionDeclarations.map((f: Json) => f['name']), s.upstream.body['toolConfig']],
        [['get_time'], { functionCallingConfig: { mode: 'ANY' } }],
      ],
      gamma: (s) => [
        [s.upstream.body['tools'].map((tool: Json) => tool['function'].name), s.upstream.body['tool_choice']],
        [['get_time'], 'required'],
      ],
    },
  },
  parallel_tool_calls: {
    body: { tools: [WEATHER], parallel_tool_calls: false, input: 'Weather? [[sim:parallel=2]]' },
    mapped: {
      alpha: (s) => [s.upstream.body['tool_choice'], { type: 'auto', disable_parallel_tool_use: true }],
      beta: (s) => [s.response?.['output'].filter((item: Json) => item['type'] === 'function_call').length, 1],
      gamma: (s) => [s.upstream.body['parallel_tool_calls'], false],
    },
  },
  'text.format': {
    body: { text: { format: FORMAT } },
    mapped: {
      alpha: (s) => [s.upstream.body['output_config'], { format: { type: 'json_schema', schema: { ...SCHEMA, additionalProperties: false } } }],
      beta: (s) => [s.upstream.body['generationConfig'], { responseMimeType: 'application/json', responseJsonSchema: SCHEMA }],
      gamma: (s) => [s.upstream.body['response_format'], { type: 'json_schema', json_schema: { name: 'answer', schema: SCHEMA } }],
    },
  },
  'text.format.strict': {
    body: { text: { format: { ...FORMAT, strict: true } } },
    mapped: {
      alpha: (s) => [s.upstream.body['output_config']?.format.type, 'json_schema'],
      beta: (s) => [s.upstream.body['generationConfig']?.responseJsonSchema, SCHEMA],
      gamma: (s) => [s.upstream.body['response_format'].json_schema.strict, true],
    },
  },
  'text.format.description': {
    body: { text: { format: { ...FORMAT, description: 'One answer.' } } },
    mapped: {
      alpha: (s) => [s.upstream.body['output_config']?.format.schema.description, 'One answer.'],
      beta: (s) => [s.upstream.body['generationConfig']?.responseJsonSchema.description, 'One answer.'],
      gamma: (s) => [s.upstream.body['response_format'].json_schema.description, 'One answer.'],
    },
  },
  'text.verbosity': { body: { text: { verbosity: 'high' } }, without: {} },
  'reasoning.effort': {
    body: { reasoning: { effort: 'low' } },
    mapped: {
      alpha: (s) => [
        [s.upstream.body['thinking'], s.upstream.body['output_config']],
        [{ type: 'adaptive' }, { effort: 'low' }],
      ],
      beta: (s) => [s.upstream.body['generationConfig'], { thinkingConfig: { thinkingLevel: 'LOW', includeThoughts: true } }],
      gamma: (s) => [s.upstream.body['reasoning_effort'], 'low'],
    },
  },
  'reasoning.summary': { body: { reasoning: { summary: 'detailed' } }, without: {} },
  'reasoning.generate_summary': { body: { reasoning: { generate_summary: 'concise' } }, without: {} },
  metadata: { body: { metadata: { team: 'a' } }, mapped: each((s) => [s.response?.['metadata'], { team: 'a' }]) },
  include: { body: { include: ['reasoning.encrypted_content', 'file_search_call.results'] } },
  'include: message.output_text.logprobs': { body: { include: ['message.output_text.logprobs'] }, param: 'include[0]' },
  top_logprobs: { body: { top_logprobs: 5 } },
  prompt_cache_key: { body: { prompt_cache_key: 'k-1' }, mapped: { alpha: (s) => [s.upstream.body['cache_control'], EPHEMERAL] } },
  prompt_cache_retention: {
    body: { prompt_cache_retention: '24h' },
    mapped: { alpha: (s) => [s.upstream.body['cache_control'], { ...EPHEMERAL, ttl: '1h' }] },
  },
  prompt_cache_options: { body: { prompt_cache_options: { mode: 'implicit' } } },
  safety_identifier: {
    body: { safety_identifier: 'u-1' },
    mapped: { alpha: (s) => [s.upstream.body['metadata'], { user_id: 'u-1' }], gamma: (s) => [s.upstream.body['user'], 'u-1'] },
  },
  user: { body: { user: 'u-2' }, mapped: { alpha: (s) => [s.upstream.body['metadata'], { user_id: 'u-2' }], gamma: (s) => [s.upstream.body['user'], 'u-2'] } },
  service_tier: { body: { service_tier: 'flex' } },
  truncation: { body: { truncation: 'auto' }, without: {} },
  background: { body: { background: true } },
  conversation: { body: { conversation: 'conv_1' } },
  prompt: { body: { prompt: { id: 'pmpt_1' } } },
  context_management: { body: { context_management: [{ type: 'compaction' }] } },
  moderation: { body: { moderation: { model: 'omni-moderation-latest' } } },
  max_tool_calls: { body: { max_tool_calls: 2 } },
  client_metadata: { body: { client_metadata: { installation_id: 'inst-1', conversation_id: 'conv-1' } } },
  access_programs: { body: { access_programs: { cyber: 'standard' } } },
  'input[].content[].detail': {
    body: image({ image_url: `data:image/png;base64,${PNG_BASE64}`, detail: 'high' }),
    param: 'input[0].content[0].detail',
    without: image({ image_url: `data:image/png;base64,${PNG_BASE64}` }),
  },
  'input[].type: item_reference': {
    body: () => ({
      input: [
        { role: 'user', content: 'Remember apple' },
        { type: 'item_reference', id: storedItemId },
        { role: 'user', content: 'Again' },
      ],
    }),
    mapped: {
      alpha: (s) => [s.upstream.body['messages'][1].role, 'assistant'],
      beta: (s) => [s.upstream.body['contents'][1].role, 'model'],
      gamma: (s) => [s.upstream.body['messages'][1].role, 'assistant'],
    },
  },
  'input[].namespace': {
    body: {
      tools: [{ type: 'namespace', name: 'weather', tools: [WEATHER] }],
      input: [
        { role: 'user', content: 'Weather?' },
        { type: 'function_call', call_id: 'call_1', namespace: 'weather', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '4 degrees' },
      ],
    },
    mapped: {
      alpha: (s) => [s.upstream.body['messages'][1].content[0].name, 'weather__get_weather'],
      beta: (s) => [s.upstream.body['contents'][1].parts[0].functionCall.name, 'weather__get_weather'],
      gamma: (s) => [s.upstream.body['messages'][1].tool_calls[0].function.name, 'weather__get_weather'],
    },
  },
  'input[].content[].file_id': { body: image({ file_id: 'file-1' }), param: 'input[0].content[0].file_id' },
  'input[].id': { body: { input: [{ type: 'message', role: 'user', content: 'Hello there', id: 'msg_1' }] } },
  'input[].status': { body: { input: [{ type: 'message', role: 'user', content: 'Hello there', status: 'completed' }] } },
  'input[].phase': { body: answered({}, { phase: 'final_answer' }), without: answered({}) },
  'input[].content[].annotations': {
    body: answered({ annotations: [{ type: 'url_citation', url: 'https://example.com/', title: 'E', start_index: 0, end_index: 5 }] }),
    without: answered({}),
  },
  'input[].content[].logprobs': { body: answered({ logprobs: [{ token: 'Hello', logprob: -0.1, bytes: [72], top_logprobs: [] }] }), without: answered({}) },
  'input[].content[].prompt_cache_breakpoint': {
    body: cached({ prompt_cache_breakpoint: EPHEMERAL }),
    without: cached({}),
    mapped: { alpha: (s) => [s.upstream.body['messages'][0].content[0].cache_control, EPHEMERAL] },
  },
  'input[].content[].prompt_cache_breakpoint: more than four': {
    body: { input: [{ role: 'user', content: FIVE_MARKED }] },
    param: 'input[0].content[0].prompt_cache_breakpoint',
    // What alpha is sent: the first breakpoint left out (beta, gamma: the same as without any).
    without: { input: [{ role: 'user', content: [{ type: 'input_text', text: 'one' }, ...FIVE_MARKED.slice(1)] }] },
  },
  'input[].content': { body: reasoned({ content: [{ type: 'reasoning_text', text: 'Thinking it over' }] }), without: reasoned({}) },
  'tools[].output_schema': { body: { tools: [{ ...WEATHER, output_schema: { type: 'object' } }] }, param: 'tools[0].output_schema' },
};

const tableRows = (): ReturnType<typeof rowsOf> => rowsOf('docs/formats/responses.md', 'responses-params');

async function send(
  h: Harness,
  key: string,
  family: Family,
  body: Json,
): Promise<{ status: number; text: string; adjusted: string | null; upstream: Upstream | null }> {
  const sim = h[family];
  const before = sim.requests.length;
  const res = await fetch(`${h.baseURL}/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODELS[family], input: 'Hello there', ...body }),
  });
  const text = await res.text();
  const seen = sim.requests.length > before ? sim.requests.at(-1) : undefined;
  return {
    status: res.status,
    text,
    adjusted: res.headers.get('x-gateway-adjusted'),
    upstream: seen ? { path: seen.path, body: JSON.parse(seen.body) as Json } : null,
  };
}

t.test('every known parameter has a row, every row a probe', async (t) => {
  const keys = tableRows().map((row) => row.key);
  t.same([...new Set(keys.map((key) => key.split(/[.[:]/)[0]))].sort(), [...RESPONSES_PARAMETERS].sort(), 'one or more rows per parameter, none unknown');
  t.same([...keys].sort(), Object.keys(PROBES).sort(), 'the probes below cover the rows exactly');
});

t.test('the parameters the schema accepts with no effect are the rows that say so for every family', async (t) => {
  const everywhere = tableRows().filter((row) => Object.values(row.cells).every((cell) => cell.startsWith('accepted, no effect')) && !row.key.includes('['));
  t.same(everywhere.map((row) => row.key).sort(), [...NO_EFFECT_PARAMETERS].sort());
});

t.test('each cell of the table is what the gateway does', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const stored = await send(h, key, 'gamma', { input: 'Remember apple' });
  storedId = (JSON.parse(stored.text) as Json)['id'];
  storedItemId = (JSON.parse(stored.text) as Json)['output'][0].id;
  // The same gateway under `parameters: strict`, where each adjusted row is refused instead.
  const strict = await startHarness(t, { env: { GATEWAY_PARAMETERS: 'strict' } });
  const { key: strictKey } = await strict.createKey();
  const baseline = Object.fromEntries(await Promise.all(FAMILIES.map(async (family) => [family, (await send(h, key, family, {})).upstream]))) as Record<
    Family,
    Upstream
  >;
  for (const { row, family, cell, category, probe, body, where } of cellsOf<Json, Probe>(tableRows(), PROBES)) {
    const got = await send(h, key, family, body);
    if (category === 'refused') {
      refusedAsSaid(t, where, { ...got, json: JSON.parse(got.text) }, probe.param ?? row);
      continue;
    }
    if (category === 'adjusted') {
      adjustedAsSaid(t, where, got, probe.param ?? row, cell);
      if (probe.without) t.same(got.upstream, (await send(h, key, family, probe.without)).upstream, `${where}: the upstream request is the one the cell says`);
      const refused = await send(strict, strictKey, family, body);
      refusedAsSaid(t, `${where}, under parameters: strict`, { ...refused, json: JSON.parse(refused.text) }, probe.param ?? row);
      continue;
    }
    t.equal(got.status, 200, where);
    if (category === 'accepted, no effect') {
      const without = probe.without ? (await send(h, key, family, probe.without)).upstream : baseline[family];
      t.same(got.upstream, without, `${where}: the upstream request is the one without it`);
      continue;
    }
    const check = probe.mapped?.[family];
    if (!check || !got.upstream) {
      t.fail(`${where}: the probe has no check for this family`);
      continue;
    }
    const response = got.text.startsWith('{') ? (JSON.parse(got.text) as Json) : null;
    const [actual, expected] = check({ status: got.status, response, upstream: got.upstream });
    t.same(actual, expected, where);
  }
});

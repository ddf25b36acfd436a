import { readFileSync } from 'node:fs';
import t from 'tap';
import { raw, startHarness, type Harness } from '../helpers/harness.js';
import { adjustedAsSaid, fieldAt } from '../helpers/param-table.js';
import { PNG_BASE64 } from '../helpers/image-server.js';
import { MESSAGES_MODELS } from '../helpers/messages-client.js';
import { legacyEnvelope, openedBy } from '../helpers/reasoning-seal.js';

/**
 * docs/formats/messages.md's parameter table, held to the code through the real gateway, row by
 * row and family by family: refused → 400 naming the parameter; accepted, no effect → the same
 * upstream request as without it; mapped → the named upstream field differs from the request
 * without it (`url`: the upstream path); passed through → alpha receives the body as sent;
 * adjusted → answered with the cell's `x-gateway-adjusted` entry (and the upstream request the
 * `without` body makes, when given), and refused under `parameters: strict`.
 */

type Body = Record<string, unknown>;
type Family = 'alpha' | 'beta' | 'gamma';

interface Sample {
  /** The body with the parameter, for a family's model. */
  with: (model: string) => Body;
  /** The body without it (default: the plain request); null: the mapped field is only checked to be there. */
  without?: ((model: string) => Body) | null;
  /** The field a refusal names, when not the row's own name; for an adjusted row, the parameter its `x-gateway-adjusted` entry names. */
  param?: string;
}

const base = (model: string, extra: Body = {}): Body => ({ model, max_tokens: 64, messages: [{ role: 'user', content: 'Hi' }], ...extra });
const TOOL = { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };
/** The tool with a schema alpha compiles strictly (it refuses an object not closed). */
const CLOSED_TOOL = { ...TOOL, input_schema: { ...TOOL.input_schema, required: ['city'], additionalProperties: false } };
const toolTurns = (result: Body = {}): Body[] => [
  { role: 'user', content: 'Weather?' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '4 degrees', ...result }] },
];
const withText = (model: string, content: unknown): Body => base(model, { messages: [{ role: 'user', content }] });

/** Alpha's own thinking and redacted thinking blocks (its simulator verifies what comes back), made by the test's first calls. */
let alphaBlocks: Body[] = [];
/**
 * Alpha's signed block and a beta signature, each in the gateway's envelope (as another format
 * hands them out): the legacy one, since the samples run on two gateways (lenient and strict),
 * each with its own seal and keys, and one envelope must open on both.
 */
const envelopedBlocks = (): Body[] => {
  const alpha = alphaBlocks[0] ?? {};
  return [
    { ...alpha, signature: legacyEnvelope({ family: 'alpha', kind: 'signature', data: String(alpha['signature']) }) },
    { type: 'thinking', thinking: '', signature: legacyEnvelope({ family: 'beta', kind: 'thought_signature', data: 'CpwBAdHt' }) },
  ];
};

/** Two earlier answers, each with beta's thinking state in the gateway's envelope (for alpha, which would leave another family's out of the body, without). */
const thoughtTurns = (model: string): Body[] => {
  const thought = (data: string): Body[] =>
    model.startsWith('alpha') ? [] : [{ type: 'thinking', thinking: '', signature: legacyEnvelope({ family: 'beta', kind: 'thought_signature', data }) }];
  return [
    { role: 'user', content: 'Hi' },
    { role: 'assistant', content: [...thought('CpwBAdHt'), { type: 'text', text: 'Hello.' }] },
    { role: 'user', content: 'More' },
    { role: 'assistant', content: [...thought('CpwBAdHu'), { type: 'text', text: 'Again.' }] },
    { role: 'user', content: 'Last' },
  ];
};

/** Alpha's own blocks, made by `h` and taken out of its seal (as a caller that began with the vendor itself would hold them). */
async function makeAlphaBlocks(h: Harness, keyId: string, key: string): Promise<void> {
  const think = async (text: string): Promise<Body> => {
    const res = await raw(h.origin, 'POST', '/v1/messages', {
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify(
        base('alpha-sonnet-4.6', { max_tokens: 2048, thinking: { type: 'enabled', budget_tokens: 1024 }, messages: [{ role: 'user', content: text }] }),
      ),
    });
    const block = (res.json() as { content: Body[] }).content[0] as Body;
    const member = block['type'] === 'thinking' ? 'signature' : 'data';
    return { ...block, [member]: (await openedBy(h.store, keyId, block[member]))?.data };
  };
  alphaBlocks = [await think('Hi'), await think('Hi [[sim:redacted=1]]')];
}

const SAMPLES: Record<string, Sample> = {
  '`model`': { with: (model) => base(model.toUpperCase()), without: null },
  '`max_tokens`': { with: (model) => base(model), without: (model) => base(model, { max_tokens: 32 }) },
  "`max_tokens` above the model's `max_output_tokens`": { with: (model) => base(model, { max_tokens: 1_000_000 }), without: null, param: 'max_tokens' },
  '`messages` (text)': { with: (model) => base(model), without: (model) => withText(model, 'Hello') },
  '`messages[].role: "system"`': {
    with: (model) =>
      base(model, {
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'system', content: 'Be brief.' },
          { role: 'user', content: 'More' },
        ],
      }),
    without: (model) =>
      base(model, {
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'user', content: 'More' },
        ],
      }),
  },
  '`system`': { with: (model) => base(model, { system: 'Be brief.' }) },
  '`image` block': {
    with: (model) =>
      withText(model, [
        { type: 'text', text: 'Look' },
        { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_BASE64 } },
      ]),
    without: (model) => withText(model, [{ type: 'text', text: 'Look' }]),
  },
  '`document` block': {
    with: (model) =>
      withText(model, [
        { type: 'text', text: 'Read' },
        { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } },
      ]),
    param: 'messages[0].content[1]',
  },
  '`tool_use`, `tool_result` blocks': {
    with: (model) => base(model, { tools: [TOOL], messages: toolTurns() }),
    without: (model) => base(model, { tools: [TOOL], messages: [{ role: 'user', content: 'Weather?' }] }),
  },
  '`tool_result.is_error`': {
    with: (model) => base(model, { tools: [TOOL], messages: toolTurns({ is_error: true }) }),
    without: (model) => base(model, { tools: [TOOL], messages: toolTurns() }),
  },
  "`thinking` blocks in the gateway's envelope (`gw2.…`, or the legacy `gw1.…`)": {
    with: (model) =>
      base(model, {
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: [...envelopedBlocks(), { type: 'text', text: 'Hello.' }] },
          { role: 'user', content: 'More' },
        ],
      }),
    without: (model) =>
      base(model, {
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
          { role: 'user', content: 'More' },
        ],
      }),
  },
  "`thinking`, `redacted_thinking` blocks (alpha's signatures)": {
    with: (model) =>
      base(model, {
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: [...alphaBlocks, { type: 'text', text: 'Hello.' }] },
          { role: 'user', content: 'More' },
        ],
      }),
    without: (model) =>
      base(model, {
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
          { role: 'user', content: 'More' },
        ],
      }),
  },
  'server tool blocks (`server_tool_use`, `web_search_tool_result`, …)': {
    with: (model) =>
      base(model, {
        messages: [
          { role: 'user', content: 'Hi' },
          {
            role: 'assistant',
            content: [
              { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'x' } },
              { type: 'text', text: 'Found.' },
            ],
          },
          { role: 'user', content: 'More' },
        ],
      }),
    param: 'messages[1].content[0]',
  },
  '`cache_control` (blocks, tools, system, top level)': {
    with: (model) =>
      base(model, {
        cache_control: { type: 'ephemeral' },
        system: [{ type: 'text', text: 'Sys', cache_control: { type: 'ephemeral' } }],
        tools: [{ ...TOOL, cache_control: { type: 'ephemeral' } }],
        tool_choice: { type: 'none' },
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_control: { type: 'ephemeral', ttl: '5m' } }] }],
      }),
    without: (model) =>
      base(model, {
        system: [{ type: 'text', text: 'Sys' }],
        tools: [TOOL],
        tool_choice: { type: 'none' },
        messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      }),
  },
  '`tools`': { with: (model) => base(model, { tools: [TOOL] }) },
  '`tools[].strict`': {
    with: (model) => base(model, { tools: [{ ...CLOSED_TOOL, strict: true }] }),
    without: (model) => base(model, { tools: [CLOSED_TOOL] }),
  },
  'server tools (`tools[]` with a versioned `type`)': {
    with: (model) => base(model, { tools: [TOOL, { type: 'web_search_20250305', name: 'web_search' }] }),
    without: (model) => base(model, { tools: [TOOL] }),
    param: 'tools[1]',
  },
  '`tools[].defer_loading`': {
    with: (model) => base(model, { tools: [{ ...TOOL, defer_loading: true }] }),
    without: (model) => base(model, { tools: [TOOL] }),
    param: 'tools[0]',
  },
  '`tool_choice`': { with: (model) => base(model, { tools: [TOOL], tool_choice: { type: 'any' } }), without: (model) => base(model, { tools: [TOOL] }) },
  '`tool_choice.disable_parallel_tool_use`': {
    with: (model) => base(model, { tools: [TOOL], tool_choice: { type: 'auto', disable_parallel_tool_use: true } }),
    without: (model) => base(model, { tools: [TOOL], tool_choice: { type: 'auto' } }),
  },
  '`stop_sequences`': { with: (model) => base(model, { stop_sequences: ['END'] }) },
  '`temperature`': { with: (model) => base(model, { temperature: 0.2 }) },
  '`top_p`': { with: (model) => base(model, { top_p: 0.5 }) },
  '`top_k`': { with: (model) => base(model, { top_k: 20 }), param: 'top_k' },
  '`metadata.user_id`': { with: (model) => base(model, { metadata: { user_id: 'user_1' } }) },
  "`metadata.user_id` longer than 64 characters (Claude Code's JSON string)": {
    with: (model) => base(model, { metadata: { user_id: JSON.stringify({ device_id: 'd'.repeat(64), account_uuid: 'a-1', session_id: 's-1' }) } }),
    without: (model) => base(model, { metadata: { user_id: 'user_1' } }),
  },
  '`thinking.budget_tokens` (`"type": "enabled"`)': {
    with: (model) => base(model, { max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 } }),
    without: (model) => base(model, { max_tokens: 4096 }),
    param: 'thinking.budget_tokens',
  },
  '`thinking` (`"type": "disabled"`)': { with: (model) => base(model, { thinking: { type: 'disabled' } }), param: 'thinking' },
  '`thinking` (`"type": "adaptive"`)': { with: (model) => base(model, { thinking: { type: 'adaptive' } }) },
  '`thinking.display`': {
    with: (model) => base(model, { thinking: { type: 'adaptive', display: 'omitted' } }),
    without: (model) => base(model, { thinking: { type: 'adaptive' } }),
  },
  '`output_config.effort`': { with: (model) => base(model, { output_config: { effort: 'high' } }) },
  '`output_config.format`': {
    with: (model) =>
      base(model, {
        output_config: {
          format: { type: 'json_schema', schema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'], additionalProperties: false } },
        },
      }),
  },
  '`service_tier`': { with: (model) => base(model, { service_tier: 'auto' }) },
  '`stream`': { with: (model) => base(model, { stream: true }) },
  '`citations` (text blocks)': {
    with: (model) =>
      base(model, {
        messages: [
          { role: 'user', content: 'Hi' },
          {
            role: 'assistant',
            content: [
              {
                type: 'text',
                text: 'Hello.',
                citations: [{ type: 'char_location', cited_text: 'Hello', document_index: 0, document_title: null, start_char_index: 0, end_char_index: 5 }],
              },
            ],
          },
          { role: 'user', content: 'More' },
        ],
      }),
    without: (model) =>
      base(model, {
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: [{ type: 'text', text: 'Hello.' }] },
          { role: 'user', content: 'More' },
        ],
      }),
  },
  'every other member of a message, a block, an image `source`, a tool (`allowed_callers`, `input_examples`, …), `tool_choice`, `metadata` or `output_config.format` not in this table':
    {
      with: (model) => base(model, { tools: [{ ...TOOL, input_examples: [{ city: 'Oslo' }] }] }),
      param: 'tools[0].input_examples',
    },
  '`context_management` `clear_thinking_20251015` with `keep: "all"` (Claude Code\'s)': {
    with: (model) => base(model, { context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] } }),
  },
  '`context_management` `clear_thinking_20251015` keeping some turns': {
    with: (model) =>
      base(model, {
        messages: thoughtTurns(model),
        context_management: { edits: [{ type: 'clear_thinking_20251015', keep: { type: 'thinking_turns', value: 1 } }] },
      }),
    without: (model) => base(model, { messages: thoughtTurns(model) }),
  },
  '`context_management` `clear_tool_uses_20250919`': {
    with: (model) => base(model, { context_management: { edits: [{ type: 'clear_tool_uses_20250919' }] } }),
    param: 'context_management.edits[0]',
  },
  'any other (`container`, `mcp_servers`, `speed`, `inference_geo`, …)': { with: (model) => base(model, { mcp_servers: [] }), param: 'mcp_servers' },
};

interface Row {
  parameter: string;
  cells: Record<Family, string>;
}

function tableRows(): Row[] {
  const doc = readFileSync('docs/formats/messages.md', 'utf8');
  const table = doc.slice(doc.indexOf('<!-- messages-params:start -->'), doc.indexOf('<!-- messages-params:end -->'));
  return table
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Parameter') && !line.startsWith('|---'))
    .map((line) => {
      const [parameter, alpha, beta, gamma] = line.slice(2, -2).split(' | ') as [string, string, string, string];
      return { parameter, cells: { alpha, beta, gamma } };
    });
}

interface Sent {
  status: number;
  param: string | null;
  /** The answer's `x-gateway-adjusted`. */
  adjusted: string | null;
  /** What reached the family's upstream (`url` and the body), or null when nothing did. */
  upstream: Body | null;
}

async function send(h: Harness, key: string, family: Family, body: Body): Promise<Sent> {
  const sim = h[family];
  const before = sim.requests.length;
  const res = await raw(h.origin, 'POST', '/v1/messages', { headers: { 'x-api-key': key, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const seen = sim.requests.length > before ? sim.requests.at(-1) : undefined;
  const param = res.status === 200 ? null : (res.json() as { error: { param: string | null } }).error.param;
  return {
    status: res.status,
    param,
    adjusted: res.headers.get('x-gateway-adjusted'),
    upstream: seen ? { url: seen.path, ...(JSON.parse(seen.body) as Body) } : null,
  };
}

t.test('the parameter table is what the code does, for every family', async (t) => {
  const rows = tableRows();
  t.same(rows.map((row) => row.parameter).sort(), Object.keys(SAMPLES).sort(), 'a sample for every row, a row for every sample');
  const h = await startHarness(t);
  const { id: keyId, key } = await h.createKey();
  // The same gateway under `parameters: strict`, where each adjusted row is refused instead.
  const strict = await startHarness(t, { env: { GATEWAY_PARAMETERS: 'strict' } });
  const { key: strictKey } = await strict.createKey();
  await makeAlphaBlocks(h, keyId, key);
  t.same(
    alphaBlocks.map((block) => block['type']),
    ['thinking', 'redacted_thinking'],
    "alpha's own blocks to hand back",
  );
  const families: Family[] = ['alpha', 'beta', 'gamma'];
  for (const row of rows) {
    const sample = SAMPLES[row.parameter] as Sample;
    for (const [i, family] of families.entries()) {
      const model = MESSAGES_MODELS[i] as string;
      const cell = row.cells[family];
      const what = `${row.parameter} × ${family}: ${cell}`;
      const sent = await send(h, key, family, sample.with(model));
      if (cell.startsWith('refused')) {
        t.same([sent.status, sent.param, sent.upstream], [400, sample.param ?? row.parameter.replace(/`/g, ''), null], what);
        continue;
      }
      if (cell.startsWith('adjusted')) {
        adjustedAsSaid(t, what, sent, sample.param ?? '', cell);
        const without = sample.without === null ? null : await send(h, key, family, (sample.without ?? ((m: string) => base(m)))(model));
        if (without) t.same(sent.upstream, without.upstream, `${what}: the upstream request is the one the cell says`);
        const refused = await send(strict, strictKey, family, sample.with(model));
        t.same([refused.status, refused.param, refused.upstream], [400, sample.param, null], `${what}: refused under parameters: strict`);
        continue;
      }
      t.equal(sent.status, 200, `${what}: answered`);
      if (cell.startsWith('passed through')) {
        const { url: _url, ...body } = sent.upstream ?? {};
        t.same(body, sample.with(model), what);
        continue;
      }
      const without = sample.without === null ? null : await send(h, key, family, (sample.without ?? ((m: string) => base(m)))(model));
      if (cell.startsWith('accepted, no effect')) {
        t.same(sent.upstream, without?.upstream, what);
        continue;
      }
      const field = /^mapped: `([^`]+)`/.exec(cell)?.[1];
      if (field === undefined) {
        t.fail(`${what}: not one of the table's four answers`);
        continue;
      }
      t.not(fieldAt(sent.upstream, field), undefined, `${what}: the field is sent`);
      if (without) t.notSame(fieldAt(sent.upstream, field), fieldAt(without.upstream, field), `${what}: the parameter changes it`);
    }
  }
});

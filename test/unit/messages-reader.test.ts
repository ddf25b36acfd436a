import type { ModelEntry } from '../../src/catalogue/catalogue.js';
import t from 'tap';
import { MESSAGES_ENDPOINTS } from '../../plugins/ingress-messages/index.js';
import { messagesFormat } from '../../plugins/ingress-messages/format.js';
import { readMessagesRequest } from '../../plugins/ingress-messages/read.js';
import { checkMessagesBody } from '../../plugins/ingress-messages/schema.js';
import { Call } from '../../src/chain/call.js';
import { sealed, TEST_SEAL } from '../helpers/reasoning-seal.js';
import { estimateInputTokens } from '../../src/neutral/token-estimate.js';
import { catalogue, detachedExchange, thrown } from '../helpers/translate.js';

/** The Messages reader and schema, table-driven with literal fixtures (docs/formats/messages.md). */

type Body = Record<string, unknown>;

const [CREATE, COUNT] = MESSAGES_ENDPOINTS as [NonNullable<(typeof MESSAGES_ENDPOINTS)[0]>, NonNullable<(typeof MESSAGES_ENDPOINTS)[1]>];

function read(body: Body, endpoint = CREATE) {
  const { req, res } = detachedExchange();
  const call = new Call(endpoint, req, res, 0, Buffer.from(JSON.stringify(body)));
  call.resolveModel(catalogue.resolve('gamma-5.4') as ModelEntry);
  call.reasoningSeal = TEST_SEAL;
  return readMessagesRequest(call);
}

const base = (extra: Body = {}): Body => ({ model: 'gamma-5.4', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }], ...extra });
const weatherTool = { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } } };
const toolTurns = (result: Body): Body[] => [
  { role: 'user', content: 'Weather?' },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Checking.' },
      { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Oslo' } },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'Thanks' },
      { type: 'tool_result', tool_use_id: 'toolu_1', ...result },
    ],
  },
];
const BETA_STATE = { family: 'beta', kind: 'thought_signature', data: 'CtQB' };

const readings: Array<[string, Body, Body]> = [
  [
    'system text and system-role messages folded in order; the turns around them merged',
    base({
      system: [
        { type: 'text', text: 'You are terse.', cache_control: { type: 'ephemeral' } },
        { type: 'text', text: 'Answer in English.' },
      ],
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'system', content: 'The date is 2026-11-15.' },
        { role: 'user', content: [{ type: 'text', text: 'there', cache_control: { type: 'ephemeral' } }] },
        { role: 'assistant', content: 'Hello.' },
        {
          role: 'system',
          content: [
            { type: 'text', text: 'Be brief.' },
            { type: 'text', text: '' },
          ],
        },
        { role: 'user', content: 'More' },
      ],
    }),
    {
      system: ['You are terse.', 'Answer in English.', 'The date is 2026-11-15.', 'Be brief.'],
      turns: [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'Hi' },
            { type: 'text', text: 'there' },
          ],
        },
        { role: 'assistant', parts: [{ type: 'text', text: 'Hello.' }] },
        { role: 'user', parts: [{ type: 'text', text: 'More' }] },
      ],
      maxTokens: 100,
    },
  ],
  [
    'images by bytes (read as chat reads a data URL) and by URL; empty text dropped',
    base({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '' },
            { type: 'image', source: { type: 'base64', media_type: 'Image/PNG', data: 'iVBORw0K\nGgo' } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
          ],
        },
      ],
    }),
    {
      turns: [
        {
          role: 'user',
          parts: [
            { type: 'image', source: { kind: 'data', mediaType: 'image/png', data: 'iVBORw0KGgo' }, param: 'messages[0].content[1]' },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' }, param: 'messages[0].content[2]' },
          ],
        },
      ],
    },
  ],
  [
    'tool use and its result (named after the call, first in its turn, the error flag kept); tools and choice',
    base({
      messages: toolTurns({
        content: [
          { type: 'text', text: '4 °C' },
          { type: 'text', text: 'cloudy' },
        ],
        is_error: true,
      }),
      tools: [weatherTool],
      tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
    }),
    {
      turns: [
        { role: 'user', parts: [{ type: 'text', text: 'Weather?' }] },
        {
          role: 'assistant',
          parts: [
            { type: 'text', text: 'Checking.' },
            { type: 'tool_call', id: 'toolu_1', name: 'get_weather', args: { city: 'Oslo' } },
          ],
        },
        {
          role: 'user',
          parts: [
            { type: 'tool_result', id: 'toolu_1', name: 'get_weather', content: '4 °C\ncloudy', isError: true },
            { type: 'text', text: 'Thanks' },
          ],
        },
      ],
      tools: [{ name: 'get_weather', description: 'Weather', parameters: weatherTool.input_schema }],
      toolChoice: { name: 'get_weather' },
      parallelToolCalls: false,
    },
  ],
  [
    'a tool result without content is empty',
    base({ messages: toolTurns({}).map((m, i) => (i === 2 ? { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1' }] } : m)) }),
    { turns: [{}, {}, { role: 'user', parts: [{ type: 'tool_result', id: 'toolu_1', name: 'get_weather', content: '' }] }] },
  ],
  ['tool_choice any → required', base({ tools: [weatherTool], tool_choice: { type: 'any' } }), { toolChoice: 'required', parallelToolCalls: true }],
  ['tool_choice none', base({ tools: [weatherTool], tool_choice: { type: 'none' } }), { toolChoice: 'none' }],
  ['no tool_choice', base({ tools: [{ ...weatherTool, type: 'custom', strict: false }] }), { toolChoice: null, tools: [{ name: 'get_weather' }] }],
  [
    "thinking blocks: alpha's signature, our envelope's state, none; redacted thinking",
    base({
      messages: [
        { role: 'user', content: 'Hi' },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Hmm.', signature: 'EqQBsig' },
            { type: 'thinking', thinking: 'More.', signature: sealed(BETA_STATE) },
            { type: 'thinking', thinking: 'Shown.' },
            { type: 'redacted_thinking', data: 'EmwKAhgB' },
            { type: 'text', text: 'Hello.' },
          ],
        },
        { role: 'user', content: 'Go on' },
      ],
    }),
    {
      turns: [
        { role: 'user' },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'Hmm.', state: { family: 'alpha', kind: 'signature', data: 'EqQBsig' } },
            { type: 'reasoning', text: 'More.', state: BETA_STATE },
            { type: 'reasoning', text: 'Shown.', state: null },
            { type: 'reasoning', text: '', state: { family: 'alpha', kind: 'redacted', data: 'EmwKAhgB' } },
            { type: 'text', text: 'Hello.' },
          ],
        },
        { role: 'user' },
      ],
    },
  ],
  [
    'sampling, stop sequences, the end user',
    base({ temperature: 0.3, top_p: 0.9, top_k: 40, stop_sequences: ['END'], metadata: { user_id: 'u-1' }, service_tier: 'auto', stream: true }),
    { temperature: 0.3, topP: 0.9, topK: 40, stop: ['END'], user: 'u-1', n: 1, seed: null, logprobs: false, reasoning: null, responseFormat: null },
  ],
  [
    'thinking enabled → a budget',
    base({ max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048 } }),
    { reasoning: { kind: 'budget', tokens: 2048, param: 'thinking.budget_tokens' } },
  ],
  ['thinking disabled → off', base({ thinking: { type: 'disabled' } }), { reasoning: { kind: 'off', param: 'thinking' } }],
  [
    "adaptive thinking alone → alpha's default effort, high, only of a model that reasons",
    base({ thinking: { type: 'adaptive' } }),
    { reasoning: { kind: 'effort', effort: 'high', param: 'thinking', ifReasoning: true } },
  ],
  [
    'display omitted → the thinking without its text',
    base({ thinking: { type: 'adaptive', display: 'omitted' } }),
    { reasoning: { kind: 'effort', effort: 'high', param: 'thinking', ifReasoning: true, omitted: true } },
  ],
  [
    'display omitted with a budget',
    base({ max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048, display: 'omitted' } }),
    { reasoning: { kind: 'budget', tokens: 2048, param: 'thinking.budget_tokens', omitted: true } },
  ],
  [
    'display summarized → shown',
    base({ max_tokens: 4096, thinking: { type: 'enabled', budget_tokens: 2048, display: 'summarized' } }),
    { reasoning: { kind: 'budget', tokens: 2048, param: 'thinking.budget_tokens' } },
  ],
  [
    'adaptive thinking with an effort → the effort',
    base({ thinking: { type: 'adaptive' }, output_config: { effort: 'high' } }),
    { reasoning: { kind: 'effort', effort: 'high', param: 'output_config.effort' } },
  ],
  ['an effort alone', base({ output_config: { effort: 'low' } }), { reasoning: { kind: 'effort', effort: 'low' } }],
  [
    'output_config.format → a JSON schema reply',
    base({ output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { a: { type: 'string' } } } } } }),
    { responseFormat: { type: 'json_schema', name: 'output', schema: { type: 'object', properties: { a: { type: 'string' } } } } },
  ],
  ['a token count has no max_tokens', { model: 'gamma-5.4', messages: [{ role: 'user', content: 'Hi' }] }, { maxTokens: null }],
];

t.test('Messages bodies → the neutral request', async (t) => {
  for (const [label, body, expected] of readings) {
    const request = read(body, 'max_tokens' in body ? CREATE : COUNT);
    t.match(request, expected, label);
    if ('turns' in expected && (expected['turns'] as Body[]).every((turn) => 'parts' in turn))
      t.same(request.turns, expected['turns'], `${label}: exactly these turns`);
  }
});

const refusals: Array<[string, Body, string]> = [
  [
    'a document block',
    base({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Read' },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'x' } },
          ],
        },
      ],
    }),
    'messages[0].content[1]',
  ],
  [
    'a server tool block',
    base({
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: [{ type: 'server_tool_use', id: 's', name: 'web_search', input: {} }] },
      ],
    }),
    'messages[1].content[0]',
  ],
  [
    'a tool_use block in a user message',
    base({ messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'x', name: 'f', input: {} }] }] }),
    'messages[0].content[0]',
  ],
  [
    'an image inside a tool result',
    base({
      tools: [weatherTool],
      messages: toolTurns({
        content: [
          { type: 'text', text: 'x' },
          { type: 'image', source: { type: 'url', url: 'https://e.com/a.png' } },
        ],
      }),
    }),
    'messages[2].content[1].content[1]',
  ],
  [
    'an image in a system message',
    base({
      messages: [
        { role: 'user', content: 'Hi' },
        { role: 'system', content: [{ type: 'image', source: { type: 'url', url: 'https://e.com/a.png' } }] },
      ],
    }),
    'messages[1].content[0]',
  ],
  [
    'an image source of another type',
    base({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }] }),
    'messages[0].content[0].source',
  ],
  ...(
    [
      ['bytes that are not an image', { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQ=' }],
      ['a media type that is none', { type: 'base64', media_type: 'png', data: 'iVBORw0KGgo' }],
      ['a media type smuggling a payload', { type: 'base64', media_type: 'image/png;base64,iVBOR', data: '' }],
      ['data that is not base64', { type: 'base64', media_type: 'image/png', data: '!!!not base64***' }],
      ['a file URL', { type: 'url', url: 'file:///etc/passwd' }],
      ['a URL that is none', { type: 'url', url: 'not a url' }],
      ['an empty URL', { type: 'url', url: '' }],
      ['a data URL as a URL source', { type: 'url', url: 'data:image/png;base64,iVBORw0KGgo' }],
    ] as const
  ).map(([label, source]): [string, Body, string] => [
    `an image source of ${label}`,
    base({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Look' },
            { type: 'image', source },
          ],
        },
      ],
    }),
    'messages[0].content[1].source',
  ]),
  [
    'a result for a call never made',
    base({ messages: [{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_9', content: 'x' }] }] }),
    'messages[0].content[0].tool_use_id',
  ],
  ['a call never answered', base({ tools: [weatherTool], messages: toolTurns({ content: 'x' }).slice(0, 2) }), 'messages'],
  ['only system messages', base({ messages: [{ role: 'system', content: 'x' }] }), 'messages'],
  [
    'a tool_choice forcing a server tool, which is left out',
    base({ tools: [weatherTool, { type: 'web_search_20250305', name: 'web_search' }], tool_choice: { type: 'tool', name: 'web_search' } }),
    'tool_choice.name',
  ],
  ['tool_choice any without tools', base({ tool_choice: { type: 'any' } }), 'tool_choice.type'],
  ['tool_choice naming no tool', base({ tools: [weatherTool], tool_choice: { type: 'tool', name: 'nope' } }), 'tool_choice.name'],
  [
    "clearing tool uses (which results, only alpha's count says)",
    base({ context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }, { type: 'clear_tool_uses_20250919' }] } }),
    'context_management.edits[1]',
  ],
  ['an unknown context edit', base({ context_management: { edits: [{ type: 'compact_20260101' }] } }), 'context_management.edits[0].type'],
  [
    'a thinking keep of another kind',
    base({ context_management: { edits: [{ type: 'clear_thinking_20251015', keep: { type: 'tool_uses', value: 1 } }] } }),
    'context_management.edits[0].keep',
  ],
  ['another', base({ container: 'c_1' }), 'container'],
  ['an output_config field', base({ output_config: { task_budget: 5 } }), 'output_config.task_budget'],
  ['a thinking field', base({ thinking: { type: 'enabled', budget_tokens: 2000, foo: 1 } }), 'thinking.foo'],
  ['a thinking type', base({ thinking: { type: 'between_tools' } }), 'thinking.type'],
  ['a budget beside adaptive thinking (it would be ignored)', base({ thinking: { type: 'adaptive', budget_tokens: 2000 } }), 'thinking.budget_tokens'],
  ['a budget beside thinking off', base({ thinking: { type: 'disabled', budget_tokens: 2000 } }), 'thinking.budget_tokens'],
  ['an unknown effort', base({ output_config: { effort: 'extreme' } }), 'output_config.effort'],
  ['an effort beside a budget', base({ thinking: { type: 'enabled', budget_tokens: 2000 }, output_config: { effort: 'low' } }), 'output_config.effort'],
  ['an output format of another type', base({ output_config: { format: { type: 'text' } } }), 'output_config.format.type'],
  [
    'an output schema that is no object',
    base({ output_config: { format: { type: 'json_schema', schema: { type: 'array' } } } }),
    'output_config.format.schema',
  ],
];

t.test('what the neutral request cannot carry is a 400 naming it in Messages notation', async (t) => {
  for (const [label, body, param] of refusals)
    t.match(
      thrown(() => read(body)),
      { status: 400, param },
      label,
    );
  const image = (source: Body): Body => base({ messages: [{ role: 'user', content: [{ type: 'image', source }] }] });
  t.equal(
    (thrown(() => read(image({ type: 'base64', media_type: 'application/pdf', data: 'JVBERi0xLjQ=' }))) as Error).message,
    'messages[0].content[0].source must hold an image: a media_type of image/… and base64 data.',
  );
  t.equal(
    (thrown(() => read(image({ type: 'url', url: 'file:///etc/passwd' }))) as Error).message,
    'messages[0].content[0].source must have a url of http or https.',
  );
  const result = base({
    messages: [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: [{ type: 'tool_result', tool_use_id: 'x', content: 'r' }] },
    ],
  });
  t.equal((thrown(() => read(result)) as Error).message, "messages[1].content[0]: 'tool_result' blocks cannot stand in an assistant message.");
});

const problems: Array<[string, Body, string | undefined, 'create' | 'count']> = [
  ['well-formed', base({ tools: [weatherTool, { type: 'bash_20250124', name: 'bash' }], messages: toolTurns({ content: 'x' }) }), undefined, 'create'],
  ['max_tokens missing', { model: 'x', messages: [{ role: 'user', content: 'Hi' }] }, 'max_tokens', 'create'],
  ['not needed to count', { model: 'x', messages: [{ role: 'user', content: 'Hi' }] }, undefined, 'count'],
  ['messages missing', { model: 'x', max_tokens: 5 }, 'messages', 'create'],
  ['a role of another format', base({ messages: [{ role: 'tool', content: 'x' }] }), 'messages[0].role', 'create'],
  ['content of the wrong type', base({ messages: [{ role: 'user', content: 5 }] }), 'messages[0].content', 'create'],
  [
    'a tool result without its id',
    base({
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
        { role: 'user', content: [{ type: 'tool_result', content: 'x' }] },
      ],
    }),
    'messages[2].content[0].tool_use_id',
    'create',
  ],
  [
    'a tool use without input',
    base({ messages: [{ role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'b' }] }] }),
    'messages[0].content[0].input',
    'create',
  ],
  [
    'a base64 image without data',
    base({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png' } }] }] }),
    'messages[0].content[0].source.data',
    'create',
  ],
  ['a system block without text', base({ system: [{ type: 'text' }] }), 'system[0].text', 'create'],
  ['temperature above 1', base({ temperature: 1.5 }), 'temperature', 'create'],
  // JSON.parse reads 1e400 as Infinity, which would reach the upstream as null.
  ['max_tokens of 1e400', base({ max_tokens: JSON.parse('1e400') }), 'max_tokens', 'create'],
  ['top_k of 1e400', base({ top_k: JSON.parse('1e400') }), 'top_k', 'create'],
  ['thinking.budget_tokens of 1e400', base({ thinking: { type: 'enabled', budget_tokens: JSON.parse('1e400') } }), 'thinking.budget_tokens', 'create'],
  ['temperature of 1e400', base({ temperature: JSON.parse('1e400') }), 'temperature', 'create'],
  ['top_p of -1e400', base({ top_p: JSON.parse('-1e400') }), 'top_p', 'create'],
  ['max_tokens beyond the exact integers', base({ max_tokens: 2 ** 53 }), 'max_tokens', 'create'],
  ['the largest exact integer is a max_tokens', base({ max_tokens: Number.MAX_SAFE_INTEGER }), undefined, 'create'],
  ['a client tool without input_schema', base({ tools: [{ name: 'f' }] }), 'tools[0].input_schema', 'create'],
  ['a named tool_choice without its name', base({ tool_choice: { type: 'tool' } }), 'tool_choice.name', 'create'],
  ['a tool_choice type', base({ tool_choice: { type: 'required' } }), 'tool_choice.type', 'create'],
  ['thinking enabled without a budget', base({ thinking: { type: 'enabled' } }), 'thinking.budget_tokens', 'create'],
  ['thinking.display of the wrong type', base({ thinking: { type: 'adaptive', display: 5 } }), 'thinking.display', 'create'],
  ['metadata.user_id of the wrong type', base({ metadata: { user_id: 5 } }), 'metadata.user_id', 'create'],
];

t.test('the schema names the field at fault', async (t) => {
  for (const [label, body, param, endpoint] of problems) {
    const problem = checkMessagesBody(endpoint === 'count' ? 'count_tokens' : 'generate', body);
    if (param === undefined) t.equal(problem, undefined, label);
    else t.match(problem, { param, message: new RegExp(`^${param.replace(/[[\].]/g, '\\$&')} `) }, label);
  }
});

t.test('the outline the gatekeepers read', async (t) => {
  const outline = (body: Body, endpoint = CREATE) => {
    const { req, res } = detachedExchange();
    const call = new Call(endpoint, req, res, 0, Buffer.from(JSON.stringify(body)));
    return messagesFormat.outline(call);
  };
  t.same(outline(base({ stream: true, max_tokens: 300 })), {
    model: 'gamma-5.4',
    stream: true,
    includeUsage: true,
    maxOutputTokens: 300,
    maxOutputParam: 'max_tokens',
    choices: 1,
    asks: { tools: null, json: null, image: null },
  });
  t.match(outline(base({ tools: [weatherTool], output_config: { format: { type: 'json_schema', schema: {} } } })), {
    stream: false,
    asks: { tools: 'tools', json: 'output_config.format' },
  });
  const image = { type: 'image', source: { type: 'url', url: 'https://e.com/a.png' } };
  t.equal(outline(base({ messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }, image] }] })).asks.image, 'messages[0].content[1]');
  t.equal(
    outline(base({ messages: toolTurns({ content: [{ type: 'text', text: 'x' }, image] }) })).asks.image,
    'messages[2].content[1].content[1]',
    'an image inside a tool result',
  );
  t.match(
    outline({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'Hi' }], stream: true }, COUNT),
    { stream: false, maxOutputTokens: 0 },
    'a count streams nothing and reserves no output',
  );
});

t.test('the input-token estimate: 4 characters a token, 1,600 an image, at least 1', async (t) => {
  const estimate = (body: Body): number => estimateInputTokens(read(body));
  t.equal(estimate(base({ messages: [{ role: 'user', content: 'Hi' }] })), 1, 'at least 1');
  t.equal(estimate(base({ system: 'abcd', messages: [{ role: 'user', content: 'abcdefgh' }] })), 3);
  t.equal(estimate(base({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: 'https://e.com/a.png' } }] }] })), 1600);
  const tools = base({ tools: [weatherTool], messages: toolTurns({ content: 'sunny' }) });
  const chars =
    'Weather?'.length +
    'Checking.'.length +
    'Thanks'.length +
    'get_weather'.length +
    '{"city":"Oslo"}'.length +
    'sunny'.length +
    JSON.stringify(read(tools).tools).length;
  t.equal(estimate(tools), Math.ceil(chars / 4), 'text, calls, results and the tool declarations');
  t.equal(
    estimate(
      base({
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'x'.repeat(40), signature: 's' }] },
          { role: 'user', content: 'Go' },
        ],
      }),
    ),
    11,
    'shown reasoning counts',
  );
});

import type { ModelEntry } from '../../src/catalogue/catalogue.js';
import t from 'tap';
import { MESSAGES_ENDPOINTS } from '../../plugins/ingress-messages/index.js';
import { readMessagesRequest } from '../../plugins/ingress-messages/read.js';
import { Call } from '../../src/chain/call.js';
import { catalogue, detachedExchange, thrown } from '../helpers/translate.js';

/**
 * Members of a Messages body's nested objects, for the families whose request is written from
 * what the gateway reads (beta, gamma): one it does not know is a 400 naming it (never dropped);
 * cache hints and an earlier answer's citations are taken (docs/formats/messages.md).
 */

type Body = Record<string, unknown>;

const [CREATE, COUNT] = MESSAGES_ENDPOINTS as [NonNullable<(typeof MESSAGES_ENDPOINTS)[0]>, NonNullable<(typeof MESSAGES_ENDPOINTS)[1]>];
const readGamma =
  (body: Body, endpoint = CREATE) =>
  () => {
    const { req, res } = detachedExchange();
    const call = new Call(endpoint, req, res, 0, Buffer.from(JSON.stringify(body)));
    call.resolveModel(catalogue.resolve('gamma-5.4') as ModelEntry);
    return readMessagesRequest(call);
  };
const base = (extra: Body): Body => ({ model: 'gamma-5.4', max_tokens: 100, messages: [{ role: 'user', content: 'Hi' }], ...extra });
const tool = { name: 'f', input_schema: { type: 'object' } };
const png = { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' };
const toolTurns = (result: Body): Body[] => [
  { role: 'user', content: 'Weather?' },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', ...result }] },
];

t.test('an unknown member of each kind of nested object is refused by its path', async (t) => {
  const cases: Array<[Body, string]> = [
    [{ messages: [{ role: 'user', content: 'Hi', name: 'bob' }] }, 'messages[0].name'],
    [{ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', foo: 1 }] }] }, 'messages[0].content[0].foo'],
    [{ messages: [{ role: 'user', content: [{ type: 'image', source: png, transformations: { crop: 1 } }] }] }, 'messages[0].content[0].transformations'],
    [{ messages: [{ role: 'user', content: [{ type: 'image', source: { ...png, detail: 'high' } }] }] }, 'messages[0].content[0].source.detail'],
    [{ tools: [tool], messages: toolTurns({ content: 'r', toolset_name: 'x' }) }, 'messages[2].content[0].toolset_name'],
    [{ tools: [tool], messages: toolTurns({ content: [{ type: 'text', text: 'r', foo: 1 }] }) }, 'messages[2].content[0].content[0].foo'],
    [
      {
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 't', signature: 's', foo: 1 }] },
          { role: 'user', content: 'More' },
        ],
      },
      'messages[1].content[0].foo',
    ],
    [{ system: [{ type: 'text', text: 'S', foo: 1 }] }, 'system[0].foo'],
    [{ tools: [{ ...tool, input_examples: [{}] }] }, 'tools[0].input_examples'],
    [{ tools: [tool], tool_choice: { type: 'auto', foo: 1 } }, 'tool_choice.foo'],
    [{ metadata: { user_id: 'u', session: 's' } }, 'metadata.session'],
    [{ output_config: { format: { type: 'json_schema', schema: { type: 'object' }, strict: true } } }, 'output_config.format.strict'],
  ];
  for (const [extra, param] of cases) {
    t.match(thrown(readGamma(base(extra))), { status: 400, param, message: new RegExp(`^${param.replace(/[.[\]]/g, '\\$&')}: members such as`) }, param);
  }
});

t.test('cache hints, citations and null members are taken; a server tool is left out whole, its members unread', async (t) => {
  const cache = { type: 'ephemeral' };
  const taken = base({
    system: [{ type: 'text', text: 'S', cache_control: cache, citations: null }],
    tools: [{ ...tool, description: 'd', cache_control: cache, strict: false, defer_loading: null }],
    tool_choice: { type: 'tool', name: 'f', disable_parallel_tool_use: false },
    metadata: { user_id: 'u' },
    messages: [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Hi', cache_control: cache },
          { type: 'image', source: png, cache_control: cache },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Hello', citations: [{ type: 'char_location', cited_text: 'H' }] },
          { type: 'tool_use', id: 'toolu_1', name: 'f', input: {}, cache_control: cache },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'r', cache_control: cache }], is_error: false, cache_control: cache },
        ],
      },
    ],
  });
  t.equal(readGamma(taken)().turns.length, 3);
  t.same(readGamma(base({ tools: [tool, { type: 'web_search_20250305', name: 'web_search', max_uses: 2 }] }))().tools, [
    { name: 'f', parameters: { type: 'object' } },
  ]);
});

t.test("a tool's input_schema must describe an object", async (t) => {
  t.match(thrown(readGamma(base({ tools: [{ name: 'f', input_schema: { type: 'array' } }] }))), {
    status: 400,
    param: 'tools[0].input_schema',
    message: 'tools[0].input_schema must describe a JSON object at its root.',
  });
});

t.test("the format's own rules hold for every family: thinking budgets, a format's schema, what a count takes", async (t) => {
  const thinking = (budget: number, maxTokens: number): Body => base({ max_tokens: maxTokens, thinking: { type: 'enabled', budget_tokens: budget } });
  t.match(thrown(readGamma(thinking(1023, 4096))), { status: 400, param: 'thinking.budget_tokens', message: 'thinking.budget_tokens must be at least 1024.' });
  t.match(thrown(readGamma(thinking(2048, 2048))), {
    status: 400,
    param: 'thinking.budget_tokens',
    message: 'thinking.budget_tokens must be less than max_tokens.',
  });
  t.match(readGamma(thinking(1024, 2048))().reasoning, { kind: 'budget', tokens: 1024 });
  t.match(thrown(readGamma(base({ output_config: { format: { type: 'json_schema' } } }))), { status: 400, param: 'output_config.format.schema' });
  const count = (extra: Body): Body => ({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'Hi' }], ...extra });
  t.match(thrown(readGamma(count({ temperature: 0.5 }), COUNT)), { status: 400, param: 'temperature' });
  t.match(thrown(readGamma(count({ max_tokens: 10 }), COUNT)), { status: 400, param: 'max_tokens' });
  t.match(
    readGamma(count({ thinking: { type: 'enabled', budget_tokens: 4096 }, system: 'S' }), COUNT)().reasoning,
    { kind: 'budget', tokens: 4096 },
    'a count has no max_tokens to hold the budget under',
  );
});

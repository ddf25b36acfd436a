import t from 'tap';
import { parseChatRequest } from '../../plugins/ingress-chat/read.js';
import { thrown } from '../helpers/translate.js';

/**
 * Members of a chat body's nested objects, for the families whose request is written from what
 * the gateway reads (alpha, beta): one it does not know is a 400 naming it, never dropped; an
 * earlier answer's echoes are taken (docs/formats/chat.md).
 */

type Json = Record<string, unknown>;
const body = (extra: Json): Json => ({ model: 'alpha-sonnet-4.6', messages: [{ role: 'user', content: 'Hi' }], ...extra });
const fn = { name: 'f', parameters: { type: 'object' } };
const call = { id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } };
const turns = (assistant: Json, tool: Json = {}): Json[] => [
  { role: 'user', content: 'Hi' },
  { role: 'assistant', content: null, tool_calls: [call], ...assistant },
  { role: 'tool', tool_call_id: 'call_1', content: 'r', ...tool },
];

t.test('an unknown member of each kind of nested object is refused by its path', async (t) => {
  const cases: Array<[Json, string]> = [
    [
      {
        messages: [
          { role: 'system', content: 'S', cache_control: {} },
          { role: 'user', content: 'Hi' },
        ],
      },
      'messages[0].cache_control',
    ],
    [{ messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi', cache_hint: {} }] }] }, 'messages[0].content[0].cache_hint'],
    [
      { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png', format: 'png' } }] }] },
      'messages[0].content[0].image_url.format',
    ],
    [{ tools: [{ type: 'function', function: fn }], messages: turns({ audio: { id: 'a' } }) }, 'messages[1].audio'],
    [{ tools: [{ type: 'function', function: fn }], messages: turns({ tool_calls: [{ ...call, caller: 'x' }] }) }, 'messages[1].tool_calls[0].caller'],
    [
      { tools: [{ type: 'function', function: fn }], messages: turns({ tool_calls: [{ ...call, function: { ...call.function, x: 1 } }] }) },
      'messages[1].tool_calls[0].function.x',
    ],
    [
      { tools: [{ type: 'function', function: fn }], messages: turns({ thinking_blocks: [{ type: 'thinking', thinking: 't', signature: 's', x: 1 }] }) },
      'messages[1].thinking_blocks[0].x',
    ],
    [{ tools: [{ type: 'function', function: fn, x: 1 }] }, 'tools[0].x'],
    [{ tools: [{ type: 'function', function: fn }], tool_choice: { type: 'function', function: { name: 'f', x: 1 } } }, 'tool_choice.function.x'],
    [{ response_format: { type: 'json_object', schema: {} } }, 'response_format.schema'],
    [{ response_format: { type: 'json_schema', json_schema: { name: 'n', schema: { type: 'object' }, x: 1 } } }, 'response_format.json_schema.x'],
    [{ stream_options: { include_usage: true, x: 1 } }, 'stream_options.x'],
  ];
  for (const [extra, param] of cases) {
    t.match(
      thrown(() => parseChatRequest(body(extra))),
      { status: 400, param, message: `${param} is not a member the gateway knows for this model; it is refused rather than dropped.` },
      param,
    );
  }
  t.match(
    thrown(() =>
      parseChatRequest(
        body({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } }] }] }),
      ),
    ),
    {
      status: 400,
      param: 'messages[0].content[0].image_url.detail',
    },
  );
});

t.test('what is approximated is announced through adjust, and refused without one', async (t) => {
  const named = body({
    messages: [
      { role: 'system', content: 'S', name: 'x' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.png', detail: 'low' } }], name: 'bob' },
    ],
    verbosity: 'high',
  });
  const announced: string[] = [];
  parseChatRequest(named, (param, action) => void announced.push(`${param}=${action}`));
  t.same(announced, ['verbosity=default:medium', 'messages[0].name=omitted', 'messages[1].name=omitted', 'messages[1].content[0].image_url.detail=sent:auto']);
  t.match(
    thrown(() => parseChatRequest(named)),
    { status: 400, param: 'verbosity' },
    'no call to announce on: refused, as under strict',
  );
});

t.test("an earlier answer's echoes are taken; its refusal is the turn's text", async (t) => {
  const echoes = body({
    tools: [{ type: 'function', function: { ...fn, description: 'd', strict: false } }],
    tool_choice: { type: 'function', function: { name: 'f' } },
    stream_options: { include_usage: true, include_obfuscation: false },
    messages: turns(
      {
        content: 'Checking.',
        refusal: 'No.',
        annotations: [],
        audio: null,
        function_call: null,
        parsed: { a: 1 },
        tool_calls: [{ ...call, index: 0, function: { ...call.function, parsed_arguments: {} } }],
      },
      { name: 'f' },
    ),
  });
  const read = parseChatRequest(echoes);
  t.same(
    read.turns[1]?.parts.filter((part) => part.type === 'text'),
    [
      { type: 'text', text: 'Checking.' },
      { type: 'text', text: 'No.' },
    ],
  );
});

t.test("a function tool's parameters must describe an object", async (t) => {
  t.match(
    thrown(() => parseChatRequest(body({ tools: [{ type: 'function', function: { name: 'f', parameters: { type: 'array' } } }] }))),
    {
      status: 400,
      param: 'tools[0].function.parameters',
      message: 'tools[0].function.parameters must describe a JSON object at its root.',
    },
  );
});

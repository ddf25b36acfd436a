import t from 'tap';
import { sealed } from '../helpers/reasoning-seal.js';
import type { NeutralRequest } from '../../src/neutral/request.js';
import { responsesFormat } from '../../plugins/ingress-responses/format.js';
import { turnOf } from '../../plugins/ingress-responses/turn.js';
import { Call } from '../../src/chain/call.js';
import { responsesCall } from '../helpers/responses-call.js';
import { thrown } from '../helpers/translate.js';

/**
 * The Responses request reader, table-driven: literal request bodies (and the stored items they
 * continue) → the neutral request; malformed or unreadable ones → the 400 naming the field in
 * Responses notation, from the schema check or from reading.
 */

type Json = Record<string, unknown>;
const ALPHA_STATE = { family: 'alpha', kind: 'signature', data: 'sig-1' };
const PNG = 'data:image/png;base64,iVBORw0KGgo=';

/** Check then read, as the pipeline does: the neutral request, or the problem (from either). */
function read(body: Json, history: Json[] = []): NeutralRequest | { param: string | null; message: string } {
  const call = responsesCall({ model: 'gamma-5.4', ...body });
  const problem = responsesFormat.check(call);
  if (problem) return problem;
  if (history.length)
    turnOf(call).continues([{ id: 'resp_1', keyId: 'k', previousId: null, createdAt: 0, items: JSON.stringify({ input: history, output: [] }) }]);
  const error = thrown(() => call.request) as { param: string | null; message: string } | undefined;
  return error ? { param: error.param, message: error.message } : call.request;
}

const DEFAULTS = {
  maxTokens: null,
  temperature: null,
  topP: null,
  topK: null,
  stop: [],
  n: 1,
  seed: null,
  user: null,
  presencePenalty: null,
  frequencyPenalty: null,
  logprobs: false,
  topLogprobs: null,
  tools: [],
  toolChoice: null,
  parallelToolCalls: true,
  responseFormat: null,
  reasoning: null,
};

const READS: Array<[name: string, body: Json, expected: Json, history?: Json[]]> = [
  [
    'a string input, instructions as the first system text',
    { input: 'Hi', instructions: 'Be brief.' },
    { ...DEFAULTS, system: ['Be brief.'], turns: [{ role: 'user', parts: [{ type: 'text', text: 'Hi' }] }] },
  ],
  [
    'a Codex transcript: id-less items, system hoisted, reasoning replayed only with a state of ours',
    {
      instructions: 'You are an agent.',
      input: [
        { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Read-only.' }] },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'List files.' },
            { type: 'input_image', image_url: PNG, detail: 'auto' },
          ],
        },
        { type: 'reasoning', summary: [], encrypted_content: null },
        { type: 'reasoning', id: 'rs_x', summary: [{ type: 'summary_text', text: 'Run ls.' }], encrypted_content: sealed(ALPHA_STATE) },
        { type: 'reasoning', summary: [{ type: 'summary_text', text: 'Theirs.' }], encrypted_content: 'gAAAAB-someone-elses' },
        { type: 'function_call', id: 'fc_1', status: 'completed', name: 'shell', arguments: '{"command":["ls"]}', call_id: 'call_ls' },
        {
          type: 'function_call_output',
          call_id: 'call_ls',
          output: [
            { type: 'input_text', text: 'README.md' },
            { type: 'input_text', text: 'src' },
          ],
        },
        {
          type: 'message',
          role: 'assistant',
          id: 'msg_1',
          status: 'completed',
          content: [
            { type: 'output_text', text: 'Two.', annotations: [] },
            { type: 'refusal', refusal: '' },
          ],
        },
        { role: 'user', content: 'Thanks' },
      ],
    },
    {
      ...DEFAULTS,
      system: ['You are an agent.', 'Read-only.'],
      turns: [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'List files.' },
            { type: 'image', source: { kind: 'data', mediaType: 'image/png', data: 'iVBORw0KGgo=' }, param: 'input[1].content[1]' },
          ],
        },
        {
          role: 'assistant',
          parts: [
            { type: 'reasoning', text: 'Run ls.', state: { ...ALPHA_STATE, deployment: 'default' } },
            { type: 'tool_call', id: 'call_ls', name: 'shell', args: { command: ['ls'] } },
          ],
        },
        { role: 'user', parts: [{ type: 'tool_result', id: 'call_ls', name: 'shell', content: 'README.md\nsrc' }] },
        { role: 'assistant', parts: [{ type: 'text', text: 'Two.' }] },
        { role: 'user', parts: [{ type: 'text', text: 'Thanks' }] },
      ],
    },
  ],
  [
    'the stored items first; a call of theirs answered by this input',
    { input: [{ type: 'function_call_output', call_id: 'c1', output: 'sunny' }] },
    {
      ...DEFAULTS,
      system: ['Old system text.'],
      turns: [
        {
          role: 'user',
          parts: [
            { type: 'text', text: 'Weather?' },
            { type: 'image', source: { kind: 'url', url: 'https://example.com/a.png' }, param: 'previous_response_id' },
          ],
        },
        { role: 'assistant', parts: [{ type: 'tool_call', id: 'c1', name: 'get', args: {} }] },
        { role: 'user', parts: [{ type: 'tool_result', id: 'c1', name: 'get', content: 'sunny' }] },
      ],
    },
    [
      { type: 'message', role: 'system', content: 'Old system text.' },
      {
        role: 'user',
        content: [
          { type: 'input_text', text: 'Weather?' },
          { type: 'input_image', image_url: 'https://example.com/a.png' },
        ],
      },
      { type: 'function_call', call_id: 'c1', name: 'get', arguments: '' },
    ],
  ],
  [
    'settings: limits, sampling, tools, choice, format, reasoning, the end-user identifier',
    {
      input: 'x',
      max_output_tokens: 50,
      temperature: 0.5,
      top_p: 0.9,
      safety_identifier: 'safe-1',
      user: 'u-1',
      parallel_tool_calls: false,
      tools: [
        { type: 'function', name: 'get', description: 'Get it', parameters: { type: 'object' }, strict: true },
        { type: 'function', name: 'put', parameters: null, strict: false },
      ],
      tool_choice: { type: 'function', name: 'put' },
      text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true, description: 'The answer.' }, verbosity: 'medium' },
      reasoning: { effort: 'high', summary: 'auto' },
    },
    {
      ...DEFAULTS,
      system: [],
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }],
      maxTokens: 50,
      temperature: 0.5,
      topP: 0.9,
      user: 'safe-1',
      parallelToolCalls: false,
      tools: [{ name: 'get', description: 'Get it', parameters: { type: 'object' }, strict: { param: 'tools[0].strict' } }, { name: 'put' }],
      toolChoice: { name: 'put' },
      responseFormat: {
        type: 'json_schema',
        name: 'out',
        schema: { type: 'object' },
        param: 'text.format',
        strict: { param: 'text.format.strict' },
        description: { text: 'The answer.', param: 'text.format.description' },
      },
      reasoning: { kind: 'effort', effort: 'high', param: 'reasoning.effort' },
    },
  ],
  [
    'json_object; user when there is no safety_identifier',
    { input: 'x', user: 'u-1', text: { format: { type: 'json_object' } } },
    {
      ...DEFAULTS,
      system: [],
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }],
      user: 'u-1',
      responseFormat: { type: 'json_object', param: 'text.format' },
    },
  ],
  [
    'auto and none ask nothing without tools (Codex sends tools: [])',
    { input: 'x', tools: [], tool_choice: 'auto', text: { format: { type: 'text' } } },
    { ...DEFAULTS, system: [], turns: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }] },
  ],
  [
    'a choice with tools is kept',
    { input: 'x', tools: [{ type: 'function', name: 'f' }], tool_choice: 'none' },
    {
      ...DEFAULTS,
      system: [],
      turns: [{ role: 'user', parts: [{ type: 'text', text: 'x' }] }],
      tools: [{ name: 'f', strict: { param: 'tools[0].strict', implied: true } }],
      toolChoice: 'none',
    },
  ],
];

t.test('bodies read into the neutral request', async (t) => {
  for (const [name, body, expected, history] of READS) t.same(read(body, history), expected, name);
});

const FC = (extra: Json = {}): Json => ({ type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}', ...extra });
const OUT = { type: 'function_call_output', call_id: 'c1', output: 'ok' };

const REFUSED: Array<[name: string, body: Json, param: string, message?: RegExp, history?: Json[]]> = [
  ['an unknown parameter', { input: 'x', temperatur: 1 }, 'temperatur', /^temperatur is not a parameter the gateway knows\.$/],
  [
    'a call without call_id',
    {
      input: [
        { role: 'user', content: 'x' },
        { type: 'function_call', name: 'f', arguments: '{}' },
      ],
    },
    'input[1].call_id',
    /is required/,
  ],
  [
    'an item type the gateway does not read',
    { input: [{ type: 'custom_tool_call', call_id: 'c', input: 'x' }] },
    'input[0].type',
    /must be one of message, function_call, function_call_output, reasoning, item_reference/,
  ],
  ['a role', { input: [{ role: 'tool', content: 'x' }] }, 'input[0].role'],
  ['a content part type', { input: [{ role: 'user', content: [{ type: 'input_file', file_id: 'f' }] }] }, 'input[0].content[0].type'],
  ['a reasoning item without summary', { input: [{ type: 'reasoning', encrypted_content: null }] }, 'input[0].summary'],
  ['tool output parts other than text', { input: [FC(), { ...OUT, output: [{ type: 'input_image', image_url: PNG }] }] }, 'input[1].output[0].type'],
  ['a bad tool name', { input: 'x', tools: [{ type: 'function', name: 'has space' }] }, 'tools[0].name'],
  ['too much metadata', { input: 'x', metadata: Object.fromEntries(Array.from({ length: 17 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
  ['a metadata value too long', { input: 'x', metadata: { k: 'v'.repeat(513) } }, 'metadata.k'],
  ['max_output_tokens below 1', { input: 'x', max_output_tokens: 0 }, 'max_output_tokens'],
  ['a json_schema format without schema', { input: 'x', text: { format: { type: 'json_schema', name: 'n' } } }, 'text.format.schema', /is required/],
  ['arguments that are not JSON', { input: [FC({ arguments: '{' }), OUT] }, 'input[0].arguments', /is not valid JSON/],
  [
    'an output for an unknown call',
    { input: [{ role: 'user', content: 'x' }, OUT] },
    'input[1].call_id',
    /does not name the call_id of an earlier function_call item/,
  ],
  [
    'a call left unanswered',
    { input: [FC(), { role: 'user', content: 'next' }] },
    'input',
    /The tool call 'c1' has no function_call_output answering it right after its function_call\./,
  ],
  ['one call id used by two calls', { input: [FC(), OUT, FC(), OUT] }, 'input', /The tool call id 'c1' is used by more than one call/],
  ['a call answered twice', { input: [FC(), OUT, OUT] }, 'input', /The tool call 'c1' is answered by more than one function_call_output\./],
  ['a stored call left unanswered', { input: 'next' }, 'input', /'c1' has no function_call_output/, [FC()]],
  ['nothing to answer', { input: [] }, 'input', /must contain at least one user or assistant message/],
  [
    'an image in a system message',
    { input: [{ role: 'system', content: [{ type: 'input_image', image_url: PNG }] }] },
    'input[0].content[0]',
    /must be a text part/,
  ],
  [
    'an image from the assistant',
    { input: [{ role: 'assistant', content: [{ type: 'input_image', image_url: PNG }] }] },
    'input[0].content[0]',
    /user messages only/,
  ],
  [
    'a data URL that is not an image',
    { input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'data:text/plain;base64,aGk=' }] }] },
    'input[0].content[0]',
    /not an image/,
  ],
  ['required without tools', { input: 'x', tool_choice: 'required' }, 'tool_choice', /tools is empty/],
  [
    'a function choice not in tools',
    { input: 'x', tools: [{ type: 'function', name: 'f' }], tool_choice: { type: 'function', name: 'g' } },
    'tool_choice',
    /names 'g', which is not in tools/,
  ],
  [
    'a schema whose root is not an object',
    { input: 'x', text: { format: { type: 'json_schema', name: 'n', schema: { type: 'array' } } } },
    'text.format.schema',
    /JSON object at its root/,
  ],
];

t.test('what cannot be read is a 400 naming the field', async (t) => {
  for (const [name, body, param, message, history] of REFUSED) {
    const got = read(body, history) as { param: string; message: string };
    t.equal(got.param, param, name);
    if (message) t.match(got.message, message, `${name}: ${got.message}`);
  }
});

t.test('the outline the gatekeepers read', async (t) => {
  const outline = (body: Json) => responsesFormat.outline(responsesCall({ model: 'gamma-5.4', ...body }));
  t.same(outline({ input: 'x' }), {
    model: 'gamma-5.4',
    stream: false,
    includeUsage: false,
    maxOutputTokens: null,
    maxOutputParam: null,
    choices: 1,
    asks: { tools: null, json: null, image: null },
  });
  t.same(
    outline({
      stream: true,
      max_output_tokens: 64,
      tools: [{ type: 'function', name: 'f' }],
      text: { format: { type: 'json_object' } },
      input: [
        { role: 'user', content: 'x' },
        {
          role: 'user',
          content: [
            { type: 'input_text', text: 'see' },
            { type: 'input_image', image_url: PNG },
          ],
        },
      ],
    }),
    {
      model: 'gamma-5.4',
      stream: true,
      includeUsage: true,
      maxOutputTokens: 64,
      maxOutputParam: 'max_output_tokens',
      choices: 1,
      asks: { tools: 'tools', json: 'text.format', image: 'input[1].content[1]' },
    },
  );
  t.same(outline({ input: 'x', tools: [], text: { format: { type: 'text' } } }).asks, { tools: null, json: null, image: null });
});

t.test('a count that JSON reads as infinite (1e400) is a 400, not null upstream', async (t) => {
  const call = responsesCall({ model: 'gamma-5.4', input: 'x' });
  const infinite = new Call(call.endpoint, call.req, call.res, call.admittedAt, Buffer.from('{"model":"gamma-5.4","input":"x","max_output_tokens":1e400}'));
  t.match(responsesFormat.check(infinite), { param: 'max_output_tokens' });
});

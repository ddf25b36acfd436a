import t from 'tap';
import { readResponsesRequest } from '../../plugins/ingress-responses/read.js';
import { checkResponsesBody } from '../../plugins/ingress-responses/schema.js';
import { planTools } from '../../plugins/ingress-responses/tools.js';
import { makeCall } from '../helpers/translate.js';

/**
 * Members of the Responses body's nested objects: every family's request is written from what
 * the gateway reads, so a member it does not know is a 400 naming it (never dropped), while the
 * echoes of an earlier response and cache hints are taken (docs/formats/responses.md).
 */

type Json = Record<string, unknown>;
const body = (extra: Json): Json => ({ model: 'gamma-5.4', ...extra });
const call = { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' };
const tool = { type: 'function', name: 'f', parameters: { type: 'object' } };

t.test('an unknown member of each kind of nested object is refused by its path', async (t) => {
  const cases: Array<[Json, string]> = [
    [{ input: [{ role: 'user', content: 'q', foo: 1 }] }, 'input[0].foo'],
    [{ input: [{ role: 'user', content: [{ type: 'input_text', text: 'q', foo: 1 }] }] }, 'input[0].content[0].foo'],
    [{ input: [{ role: 'assistant', content: [{ type: 'refusal', refusal: 'no', foo: 1 }] }] }, 'input[0].content[0].foo'],
    [{ tools: [{ type: 'namespace', name: 'ns', tools: [{ ...tool, foo: 1 }] }] }, 'tools[0].tools[0].foo'],
    [{ tools: [{ type: 'namespace', name: 'ns', tools: [], foo: 1 }] }, 'tools[0].foo'],
    [
      { input: [{ role: 'user', content: 'q' }, call, { type: 'function_call_output', call_id: 'c1', output: 'r', caller: { type: 'program' } }] },
      'input[2].caller',
    ],
    [
      { input: [{ role: 'user', content: 'q' }, call, { type: 'function_call_output', call_id: 'c1', output: [{ type: 'input_text', text: 'r', foo: 1 }] }] },
      'input[2].output[0].foo',
    ],
    [{ input: [{ type: 'reasoning', summary: [{ type: 'summary_text', text: 's', foo: 1 }] }] }, 'input[0].summary[0].foo'],
    [{ input: [{ type: 'reasoning', summary: [], foo: 1 }] }, 'input[0].foo'],
    [{ tools: [{ ...tool, output_schema: { type: 'object' } }] }, 'tools[0].output_schema'],
    [{ tools: [tool], tool_choice: { type: 'function', name: 'f', x: 1 } }, 'tool_choice.x'],
    [{ text: { format: { type: 'json_schema', name: 'n', schema: { type: 'object' }, extra: 1 } } }, 'text.format.extra'],
    [{ text: { format: { type: 'json_object', schema: { type: 'object' } } } }, 'text.format.schema'],
  ];
  for (const [extra, param] of cases) {
    t.match(checkResponsesBody(body(extra)), { param, message: `${param} is not a member the gateway knows; it is refused rather than dropped.` }, param);
  }
});

t.test("the gateway's own output items, echoes and cache hints are taken; null asks nothing", async (t) => {
  const echoes = body({
    input: [
      {
        type: 'message',
        role: 'user',
        id: 'msg_0',
        status: 'completed',
        content: [{ type: 'input_text', text: 'q', prompt_cache_breakpoint: { type: 'ephemeral' } }],
      },
      {
        type: 'reasoning',
        id: 'rs_1',
        summary: [{ type: 'summary_text', text: 's' }],
        encrypted_content: null,
        content: [{ type: 'reasoning_text', text: 't' }],
        status: 'completed',
      },
      {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        status: 'completed',
        phase: 'commentary',
        content: [{ type: 'output_text', text: 'a', annotations: [], logprobs: [], parsed: { a: 1 } }],
      },
      { id: 'fc_1', ...call, namespace: 'ns', status: 'completed', parsed_arguments: {} },
      { type: 'function_call_output', id: 'fco_1', call_id: 'c1', output: 'r', status: 'completed', caller: null },
    ],
    tools: [
      { ...tool, description: 'd', strict: false, defer_loading: null },
      { type: 'web_search', filters: { allowed_domains: ['x'] } },
    ],
    tool_choice: { type: 'function', name: 'f' },
    text: { format: { type: 'json_schema', name: 'n', schema: { type: 'object' }, strict: null, description: 'x' } },
  });
  t.equal(checkResponsesBody(echoes), undefined);
});

t.test("a function tool's parameters must describe an object", async (t) => {
  const call = makeCall(body({ input: 'q' }), { model: 'gamma-5.4' });
  t.throws(() => planTools(call, [{ ...tool, parameters: { type: 'array' } }]), {
    status: 400,
    param: 'tools[0].parameters',
    message: 'tools[0].parameters must describe a JSON object at its root.',
  });
  t.same(readResponsesRequest(body({ input: 'q' }), [], [{ role: 'user', content: 'q' }], planTools(call, [tool]), new Map()).tools, [
    { name: 'f', parameters: { type: 'object' }, strict: { param: 'tools[0].strict', implied: true } },
  ]);
});

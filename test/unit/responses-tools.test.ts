import t from 'tap';
import { outputItemId, responseOfItem } from '../../plugins/ingress-responses/item-ids.js';
import { resolveReferences } from '../../plugins/ingress-responses/references.js';
import { allowedTools, flattenedName, planTools } from '../../plugins/ingress-responses/tools.js';
import { ADJUSTED_HEADER } from '../../src/chain/adjustments.js';
import type { StoredResponse } from '../../plugins/ingress-responses/store/responses.js';
import { makeCall, thrown } from '../helpers/translate.js';

/** The pieces of the Responses ingress behind Codex's tools and the AI SDK's item references, against literal fixtures. */

const VENDOR_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

t.test('a namespace function is offered under one name every vendor takes, the same on every turn', async (t) => {
  t.equal(flattenedName('multi_agent', 'spawn_agent'), 'multi_agent__spawn_agent', 'a name that fits stays readable');
  const long = flattenedName('n'.repeat(40), 'f'.repeat(40));
  const odd = flattenedName('mcp.server:files', 'read file');
  for (const name of [long, odd]) t.match(name, VENDOR_NAME, `${name}: within the strictest vendor rule`);
  t.equal(long.length, 64);
  t.equal(flattenedName('n'.repeat(40), 'f'.repeat(40)), long, 'deterministic: a replayed call finds its tool');
  t.not(flattenedName('n'.repeat(40), `${'f'.repeat(39)}g`), long, 'pairs cut to the same prefix stay apart');
  t.not(flattenedName('a.b', 'c'), flattenedName('a_b', 'c'), 'names that sanitise alike stay apart');
});

t.test('the plan: functions as they are, namespaces flattened, hosted and freeform tools left out, deferred ones offered, each announced', async (t) => {
  const call = makeCall({ model: 'gamma-5.4' }, { model: 'gamma-5.4' });
  const fn = (name: string, extra = {}) => ({ type: 'function', name, parameters: { type: 'object' }, ...extra });
  const plan = planTools(call, [
    fn('exec'),
    { type: 'namespace', name: 'ns', tools: [fn('a'), { type: 'custom', name: 'patch' }, fn('b', { defer_loading: true })] },
    { type: 'web_search' },
    fn('late', { defer_loading: true }),
  ]);
  t.same(
    plan.offered.map((tool) => tool.name),
    ['exec', 'ns__a', 'ns__b', 'late'],
  );
  t.same(
    [...plan.namespaced],
    [
      ['ns__a', { namespace: 'ns', name: 'a' }],
      ['ns__b', { namespace: 'ns', name: 'b' }],
    ],
  );
  t.equal(
    call.res.getHeader(ADJUSTED_HEADER),
    'tools[1].tools[1]=omitted:custom, tools[1].tools[2]=offered:deferred, tools[2]=omitted:web_search, tools[3]=offered:deferred',
  );
});

t.test('an output item id names its response', async (t) => {
  const response = 'resp_019abcdef012AbCdEfGhIjKlMnOpQrStUvWx';
  for (const [prefix, index] of [
    ['msg_', 0],
    ['rs_', 1],
    ['fc_', 40],
  ] as const) {
    const id = outputItemId(prefix, response, index);
    t.match(id, /^(msg|rs|fc)_[A-Za-z0-9]+$/);
    t.equal(responseOfItem(id), response, id);
  }
  t.equal(responseOfItem('msg_AbCdEfGhIjKlMnOpQrStUvWx'), null, 'an id of the older form names none');
  t.equal(responseOfItem('fco_019abcdef012AbCdEfGhIjKlMnOpQrStUvWx0'), null, 'nor another prefix');
});

t.test('references resolve to the stored output items, each response read once; anything else is the not-found answer naming the item', async (t) => {
  const response = 'resp_019abcdef012AbCdEfGhIjKlMnOpQrStUvWx';
  const message = { id: outputItemId('msg_', response, 1), type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi' }] };
  const reasoning = { id: outputItemId('rs_', response, 0), type: 'reasoning', summary: [], encrypted_content: 'gw1.x' };
  const stored: StoredResponse = {
    id: response,
    keyId: 'k',
    previousId: null,
    createdAt: 0,
    items: JSON.stringify({ input: [], output: [reasoning, message] }),
  };
  const asked: string[] = [];
  const find = async (id: string): Promise<StoredResponse | null> => {
    asked.push(id);
    return id === response ? stored : null;
  };
  const user = { role: 'user', content: 'Hi' };
  const got = await resolveReferences([user, { type: 'item_reference', id: reasoning.id }, { type: 'item_reference', id: message.id }], find);
  t.same(got.input, [user, reasoning, message]);
  t.equal(got.bytes, Buffer.byteLength(JSON.stringify(reasoning)) + Buffer.byteLength(JSON.stringify(message)));
  t.same(asked, [response], 'one read for both items');
  for (const id of [outputItemId('fc_', response, 5), 'msg_unknown', outputItemId('msg_', 'resp_019abcdef012ZZZZZZZZZZZZZZZZZZZZZZZZ', 0)]) {
    await t.rejects(
      resolveReferences([user, { type: 'item_reference', id }], find),
      { status: 400, param: 'input[1]', code: 'item_not_found', message: `Item with id '${id}' not found.` },
      id,
    );
  }
});

t.test('allowed_tools: only the listed functions are offered, with the mode as the choice', async (t) => {
  const offered = [{ name: 'a' }, { name: 'b' }, { name: 'ns__c' }];
  t.same(
    allowedTools(
      {
        type: 'allowed_tools',
        mode: 'required',
        tools: [{ type: 'function', name: 'b' }, { type: 'function', namespace: 'ns', name: 'c' }, { type: 'web_search' }],
      },
      offered,
    ),
    {
      tools: [{ name: 'b' }, { name: 'ns__c' }],
      mode: 'required',
    },
  );
  t.match(
    thrown(() => allowedTools({ type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 'z' }] }, offered)),
    { status: 400, param: 'tool_choice.tools[0]' },
  );
  t.match(
    thrown(() => allowedTools({ type: 'allowed_tools', mode: 'required', tools: [{ type: 'web_search' }] }, offered)),
    { status: 400, param: 'tool_choice' },
    'required, and only a tool left out listed: nothing honest remains',
  );
  t.same(
    allowedTools({ type: 'allowed_tools', mode: 'auto', tools: [{ type: 'web_search' }] }, offered),
    { tools: [], mode: 'auto' },
    'auto with nothing callable: no tools offered',
  );
});

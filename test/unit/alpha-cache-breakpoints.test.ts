import t from 'tap';
import { parseChatRequest } from '../../plugins/ingress-chat/read.js';
import { alphaRequest } from '../../plugins/vendor-alpha/request.js';
import { loadCatalogue } from '../../src/catalogue/catalogue.js';

/**
 * Cache breakpoints in alpha's request (plugins/vendor-alpha/cache.ts): each on the block, tool or
 * system text it follows; of more than four, the last four in the vendor's prompt order (tools,
 * system, messages, automatic caching) are kept and each earlier one announced.
 */

type Json = Record<string, any>;
const model = loadCatalogue('config/models.yaml').resolve('alpha-sonnet-4.6');
if (!model) throw new Error('alpha-sonnet-4.6 is not in the catalogue');
const EPHEMERAL = { type: 'ephemeral' };
const HOUR = { type: 'ephemeral', ttl: '1h' };

function written(body: Json): { sent: Json; adjusted: string[] } {
  const adjusted: string[] = [];
  const { body: sent } = alphaRequest(parseChatRequest({ model: 'alpha-sonnet-4.6', ...body }), model as NonNullable<typeof model>, false, (param, action) => {
    adjusted.push(`${param}=${action}`);
  });
  return { sent, adjusted };
}

const tool = (name: string, cache?: Json): Json => ({
  type: 'function',
  function: { name, parameters: { type: 'object' } },
  ...(cache ? { cache_control: cache } : {}),
});

t.test('each breakpoint where it was set, its ttl kept; none set, none sent', async (t) => {
  const { sent, adjusted } = written({
    tools: [tool('a'), tool('b', HOUR)],
    messages: [
      {
        role: 'system',
        content: [
          { type: 'text', text: 'Rules.' },
          { type: 'text', text: 'More rules.', cache_control: EPHEMERAL },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Question', cache_control: EPHEMERAL },
          { type: 'text', text: 'Unmarked' },
        ],
      },
    ],
  });
  t.same(adjusted, []);
  t.same(
    sent.tools.map((one: Json) => one.cache_control),
    [undefined, HOUR],
  );
  t.same(sent.system, [{ type: 'text', text: 'Rules.\nMore rules.', cache_control: EPHEMERAL }], "the system message's text, marked at its end");
  t.same(sent.messages[0].content, [
    { type: 'text', text: 'Question', cache_control: EPHEMERAL },
    { type: 'text', text: 'Unmarked' },
  ]);
  t.equal(sent.cache_control, undefined);

  const plain = written({ tools: [tool('a')], messages: [{ role: 'user', content: 'Hi' }] }).sent;
  t.notOk(JSON.stringify(plain).includes('cache_control'), 'a request without any is written without any');
});

t.test('more than four: the earliest left out, tools first, and each announced', async (t) => {
  const { sent, adjusted } = written({
    prompt_cache_key: 'conv',
    tools: [tool('a', EPHEMERAL), tool('b', EPHEMERAL)],
    messages: [
      { role: 'system', content: [{ type: 'text', text: 'Rules.', cache_control: EPHEMERAL }] },
      { role: 'user', content: [{ type: 'text', text: 'Question', cache_control: EPHEMERAL }] },
    ],
  });
  t.same(adjusted, ['tools[0].cache_control=dropped:limit']);
  t.same(
    [sent.tools[0].cache_control, sent.tools[1].cache_control, sent.system[0].cache_control, sent.messages[0].content[0].cache_control, sent.cache_control],
    [undefined, EPHEMERAL, EPHEMERAL, EPHEMERAL, EPHEMERAL],
  );
});

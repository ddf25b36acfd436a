import OpenAI from 'openai';
import t from 'tap';
import capabilities from '../../plugins/capabilities/index.js';
import type { PluginContext } from '../../src/chain/plugin.js';
import type { Capability } from '../../src/catalogue/catalogue.js';
import { startHarness } from '../helpers/harness.js';
import { withFacts } from '../helpers/pipeline-parts.js';
import { catalogue, makeCall, thrown } from '../helpers/translate.js';

type APIError = InstanceType<typeof OpenAI.APIError>;

t.test('what the catalogue entry does not offer is a 400 naming the field', async (t) => {
  const hooks = await capabilities.setup({ catalogue } as PluginContext, {});
  const check = (body: unknown, offered: Capability[], endpoint: 'chat.completions' | 'embeddings' = 'chat.completions'): unknown => {
    const call = makeCall(body, { model: 'beta-3-flash', endpoint });
    call.resolveModel({ ...call.model, capabilities: new Set(offered) });
    return thrown(() => hooks.onRequest?.(withFacts(call, 'model')));
  };
  const tools = [{ type: 'function', function: { name: 'f' } }];
  const image = { type: 'image_url', image_url: { url: 'https://example.com/a.png' } };
  t.match(check({ tools, messages: [] }, ['vision', 'json']), { status: 400, param: 'tools', message: /does not support tools/ });
  t.match(check({ response_format: { type: 'json_schema', json_schema: { name: 'n' } }, messages: [] }, ['tools']), { status: 400, param: 'response_format' });
  t.match(check({ response_format: { type: 'json_object' }, messages: [] }, ['tools']), { status: 400, param: 'response_format' });
  t.match(
    check(
      {
        messages: [
          { role: 'system', content: 'x' },
          { role: 'user', content: [{ type: 'text', text: 'x' }, image] },
        ],
      },
      ['tools'],
    ),
    { status: 400, param: 'messages[1].content[1]' },
  );
  t.match(check({ input: 'x' }, ['tools'], 'embeddings'), { status: 400, param: 'model', message: /offers no embeddings/ });
  t.equal(
    check({ tools, response_format: { type: 'text' }, messages: [{ role: 'user', content: [image] }] }, ['tools', 'vision']),
    undefined,
    'what is offered passes',
  );
  t.equal(check({ tools: [], messages: [{ role: 'user', content: 'x' }] }, []), undefined, 'an empty tools list asks for nothing');
});

t.test('through the gateway: refused before any upstream', async (t) => {
  const h = await startHarness(t);
  const client = h.client((await h.createKey()).key);
  const noVision = await client.chat.completions
    .create({
      model: 'gamma-5.3-code',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'x' },
            { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
          ],
        },
      ],
    })
    .catch((e: unknown) => e);
  t.equal((noVision as APIError).status, 400);
  t.equal((noVision as APIError).param, 'messages[0].content[1]');
  t.equal(h.gamma.requests.length, 0, 'the upstream never saw it');
  const noEmbeddings = await client.embeddings.create({ model: 'alpha-opus-4-6', input: 'x' }).catch((e: unknown) => e);
  t.equal((noEmbeddings as APIError).status, 400);
  t.equal((noEmbeddings as APIError).param, 'model');
  t.match((noEmbeddings as Error).message, /alpha-opus-4\.6.*alpha family has no embedding model/);
  t.equal(h.alpha.requests.length, 0);
});

import pino from 'pino';
import type { IncomingMessage, ServerResponse } from 'node:http';
import t from 'tap';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { chatFormat } from '../../plugins/ingress-chat/format.js';
import { MESSAGES_ENDPOINTS } from '../../plugins/ingress-messages/index.js';
import { BetaFilter } from '../../plugins/vendor-alpha/betas.js';
import { AlphaPassthrough } from '../../plugins/vendor-alpha/passthrough.js';
import { createAlphaSimulator } from '../../plugins/vendor-alpha/simulator.js';
import { AlphaTranslator } from '../../plugins/vendor-alpha/translator.js';
import { createBetaSimulator } from '../../plugins/vendor-beta/simulator.js';
import { ThoughtSignatures } from '../../plugins/vendor-beta/thought-signatures.js';
import { BetaTranslator } from '../../plugins/vendor-beta/translator.js';
import { GammaTranslating } from '../../plugins/vendor-gamma/translator.js';
import { Call, type Endpoint } from '../../src/chain/call.js';
import type { GuardedFetcher } from '../../src/net/guarded-fetch.js';
import { silentLog } from '../helpers/pipeline-parts.js';
import { withPluginStates } from '../helpers/plugin-state.js';
import { resolvedTo, thrown } from '../helpers/translate.js';
import type { ResolvedCall } from '../../src/chain/phases.js';

/** Token counts per family (docs/formats/messages.md#token-counts), and the simulators' count routes. */

const COUNT = MESSAGES_ENDPOINTS[1] as Endpoint;
const BODY = { model: 'x', system: 'Be brief.', messages: [{ role: 'user', content: 'Hello there' }] };

function call(endpoint: Endpoint, model: string, body: Record<string, unknown> = { ...BODY, model }): ResolvedCall {
  return resolvedTo(new Call(endpoint, { headers: {} } as IncomingMessage, {} as ServerResponse, 0, Buffer.from(JSON.stringify(body))), model);
}

t.test('beta counts with :countTokens over the whole translated request', async (t) => {
  const store = await withPluginStates(SqliteStore.open(':memory:'));
  t.teardown(() => store.close());
  const signatures = new ThoughtSignatures(store.signatures, { now: () => 0 }, pino({ level: 'silent' }));
  const services = { apiKey: 'beta-key', embeddingModel: null, fetcher: {} as GuardedFetcher, signatures };
  const translator = new BetaTranslator(call(COUNT, 'beta-3-flash'), services);
  const request = await translator.request();
  t.equal(request.path, 'v1beta/models/beta-3-flash:countTokens');
  t.same(JSON.parse(request.body.toString()), {
    generateContentRequest: {
      model: 'models/beta-3-flash',
      contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }],
      systemInstruction: { parts: [{ text: 'Be brief.' }] },
    },
  });
  t.same(translator.response(Buffer.from('{"totalTokens":5,"promptTokensDetails":[]}')), {
    body: '{"input_tokens":5}',
    usage: { promptTokens: 0, completionTokens: 0 },
  });
  t.match(
    thrown(() => translator.response(Buffer.from('{"cachedContentTokenCount":1}'))),
    { status: 502, message: /without totalTokens/ },
  );
});

t.test('gamma answers a count itself, with the estimate; alpha counts for every wire, sending only what its count reads', async (t) => {
  const gamma = new GammaTranslating(call(COUNT, 'gamma-5.4'), 'k').request();
  t.same(gamma, { local: { body: '{"input_tokens":5}', usage: { promptTokens: 0, completionTokens: 0 } } }, "'Be brief.' and 'Hello there': 20 characters → 5");

  const chatCount = call({ ...COUNT, format: chatFormat }, 'alpha-sonnet-4.6', {
    model: 'alpha-sonnet-4.6',
    max_tokens: 50,
    temperature: 0.5,
    messages: [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Hello there' },
    ],
  });
  const translated = new AlphaTranslator(chatCount, 'k').request();
  t.equal(translated.path, 'v1/messages/count_tokens', "a caller of another wire is counted by alpha's count endpoint");
  const sent = JSON.parse(String(translated.body)) as Record<string, unknown>;
  t.same(Object.keys(sent).sort(), ['messages', 'model', 'system'], 'the prompt only: no max_tokens, stream or sampling');
  const embed = call({ ...COUNT, operation: 'embed' }, 'alpha-sonnet-4.6');
  t.match(
    thrown(() => new AlphaPassthrough(embed, { apiKey: 'k', betas: new BetaFilter([], silentLog) }).request()),
    { status: 400, param: 'model' },
    'nor embeddings through the passthrough',
  );
  const counted = new AlphaPassthrough(call(COUNT, 'alpha-sonnet-4.6'), { apiKey: 'k', betas: new BetaFilter([], silentLog) }).request();
  t.equal(counted.path, 'v1/messages/count_tokens');
});

t.test("the simulators' count routes agree with the prompt tokens of their replies", async (t) => {
  const alpha = createAlphaSimulator();
  const beta = createBetaSimulator();
  await Promise.all([alpha.listen(), beta.listen()]);
  t.teardown(() => Promise.all([alpha.close(), beta.close()]));
  const post = async (url: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
    return { status: res.status, json: (await res.json()) as unknown };
  };
  const version = { 'anthropic-version': '2023-06-01' };
  t.same(await post(`${alpha.url}/v1/messages/count_tokens`, BODY, version), { status: 200, json: { input_tokens: 4 } }, 'system and message words');
  t.match(await post(`${alpha.url}/v1/messages/count_tokens`, BODY), { status: 400, json: { error: { message: /anthropic-version/ } } });
  t.match(await post(`${alpha.url}/v1/messages/count_tokens`, { model: 'x', messages: [] }, version), {
    status: 400,
    json: { error: { type: 'invalid_request_error' } },
  });
  alpha.faults.push({ status: 529 });
  t.equal((await post(`${alpha.url}/v1/messages/count_tokens`, BODY, version)).status, 529, 'queued faults apply');

  const contents = [{ role: 'user', parts: [{ text: 'Hello there' }] }];
  t.same(await post(`${beta.url}/v1beta/models/beta-3-flash:countTokens`, { contents }), { status: 200, json: { totalTokens: 2 } }, 'bare contents');
  t.same(
    await post(`${beta.url}/v1beta/models/beta-3-flash:countTokens`, {
      generateContentRequest: { model: 'models/beta-3-flash', contents, systemInstruction: { parts: [{ text: 'Be brief.' }] } },
    }),
    { status: 200, json: { totalTokens: 4 } },
  );
  t.match(await post(`${beta.url}/v1beta/models/beta-3-flash:countTokens`, {}), { status: 400, json: { error: { status: 'INVALID_ARGUMENT' } } });
});

import t from 'tap';
import { answered, CLIENT_MODELS, SIMULATED_TEXT, startClientGateway, summary } from '../helpers/client-gateway.js';
import { loadSdkClients } from './helpers/installed.js';

/**
 * The Vercel AI SDK (`ai` + `@ai-sdk/openai`) as an application uses it, given only the
 * gateway's base URL and a key: `openai(model)` (the Responses API) and `openai.chat(model)`,
 * each with generateText, streamText, a tool loop of several steps and generateObject, on one
 * model of each family. Each step its own test, so that one refusal does not hide the others.
 */

const sdkClients = await loadSdkClients(t);
if (sdkClients) {
  const { aiSdk, SIMULATED_REPORT, WEATHER } = sdkClients;
  t.test('the AI SDK through the gateway', async (t) => {
    const gw = await startClientGateway(t);
    for (const api of ['responses', 'chat'] as const) {
      const endpoint = api === 'chat' ? 'chat.completions' : 'responses';
      for (const model of CLIENT_MODELS) {
        t.test(`${api === 'chat' ? 'openai.chat' : 'openai'}(${model})`, async (t) => {
          const sdk = aiSdk({ baseURL: gw.h.baseURL, key: gw.key, model }, api);
          t.test('generateText', async (t) => {
            const { result, rows } = await gw.during(sdk.generate);
            t.equal(result.text, SIMULATED_TEXT, 'the answer');
            t.same(summary(rows), answered(model, endpoint, 1), 'one call in the ledger');
          });

          t.test('streamText', async (t) => {
            const { result, rows } = await gw.during(sdk.stream);
            t.equal(result.text, SIMULATED_TEXT, 'the answer');
            t.ok(result.deltas > 1, 'in pieces');
            t.same(summary(rows), answered(model, endpoint, 1), 'one call in the ledger');
            t.equal(rows[0]?.stream, 1, 'streamed');
          });

          t.test('a tool loop (stopWhen: stepCountIs(3))', async (t) => {
            const { result, rows } = await gw.during(sdk.toolLoop);
            t.same(result.calledWith, ['sample'], "the application's tool ran once, with the model's arguments");
            t.match(result.text, WEATHER.answer('sample'), "the model's last answer was written from its result");
            t.same(summary(rows), answered(model, endpoint, 2), 'two calls in the ledger: the tool call, the answer');
          });

          t.test('generateObject (zod)', async (t) => {
            const { result, rows } = await gw.during(sdk.object);
            t.same(result, SIMULATED_REPORT, 'the parsed object');
            t.same(summary(rows), answered(model, endpoint, 1), 'one call in the ledger');
          });
        });
      }
    }

    t.test('nothing left loopback', async (t) => {
      t.same(gw.outsideConnections(), [], 'every connection the clients made was to the gateway on loopback');
    });
  });
}

import t from 'tap';
import { answered, CLIENT_MODELS, startClientGateway, summary } from '../helpers/client-gateway.js';
import { loadSdkClients } from './helpers/installed.js';

/**
 * The OpenAI Agents SDK (`@openai/agents`) on its default provider (the Responses API), given
 * only the gateway's base URL and a key, its own tracer off: an agent with a function tool
 * (strict, the SDK's default) and an agent with an `outputType`, on one model of each family.
 */

const sdkClients = await loadSdkClients(t);
if (sdkClients) {
  const { agentsSdk, SIMULATED_REPORT, WEATHER } = sdkClients;
  t.test('the Agents SDK through the gateway', async (t) => {
    const gw = await startClientGateway(t);
    for (const model of CLIENT_MODELS) {
      t.test(model, async (t) => {
        const sdk = agentsSdk({ baseURL: gw.h.baseURL, key: gw.key, model });
        t.test('an agent with a function tool', async (t) => {
          const { result, rows } = await gw.during(sdk.toolAgent);
          t.same(result.calledWith, ['sample'], "the agent's tool ran once, with the model's arguments");
          t.match(result.text, WEATHER.answer('sample'), "the agent's final output was written from the tool's result");
          t.same(summary(rows), answered(model, 'responses', 2), 'two calls in the ledger: the tool call, the answer');
        });

        t.test('an agent with an outputType (zod)', async (t) => {
          const { result, rows } = await gw.during(sdk.outputAgent);
          t.same(result, SIMULATED_REPORT, 'the parsed object');
          t.same(summary(rows), answered(model, 'responses', 1), 'one call in the ledger');
        });
      });
    }

    t.test('nothing left loopback', async (t) => {
      t.same(gw.outsideConnections(), [], 'every connection the clients made was to the gateway on loopback');
    });
  });
}

import t from 'tap';
import { answered, CLIENT_MODELS, SIMULATED_TEXT, startClientGateway, summary } from '../helpers/client-gateway.js';
import { loadSdkClients } from './helpers/installed.js';

/**
 * LangChain's `ChatOpenAI` (`@langchain/openai`), given only the gateway's base URL and a key,
 * on its default (chat) and with `useResponsesApi: true`: invoke, a bound tool's call and
 * withStructuredOutput(zod), on one model of each family.
 */

const sdkClients = await loadSdkClients(t);
if (sdkClients) {
  const { langChain, SIMULATED_REPORT, WEATHER } = sdkClients;
  t.test('LangChain through the gateway', async (t) => {
    const gw = await startClientGateway(t);
    for (const useResponsesApi of [false, true]) {
      const endpoint = useResponsesApi ? 'responses' : 'chat.completions';
      for (const model of CLIENT_MODELS) {
        t.test(`ChatOpenAI(${model})${useResponsesApi ? ' with useResponsesApi' : ''}`, async (t) => {
          const llm = langChain({ baseURL: gw.h.baseURL, key: gw.key, model }, useResponsesApi);
          t.test('invoke', async (t) => {
            const { result, rows } = await gw.during(llm.invoke);
            t.equal(result.text, SIMULATED_TEXT, 'the answer');
            t.same(summary(rows), answered(model, endpoint, 1), 'one call in the ledger');
          });

          t.test('bindTools', async (t) => {
            const { result, rows } = await gw.during(llm.toolCall);
            t.same(result, [{ name: WEATHER.name, args: { city: 'sample' } }], "the model's call, parsed");
            t.same(summary(rows), answered(model, endpoint, 1), 'one call in the ledger');
          });

          t.test('withStructuredOutput (zod)', async (t) => {
            const { result, rows } = await gw.during(llm.structured);
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

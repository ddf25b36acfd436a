import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import t from 'tap';
import { answered, CLIENT_MODELS, SIMULATED_TEXT, startClientGateway, summary } from '../helpers/client-gateway.js';

/**
 * The official `openai` (chat and Responses) and `@anthropic-ai/sdk` (Messages) clients on their
 * defaults, given only the gateway's base URL and a key: one basic call each, on one model of
 * each family (their full coverage is in the format suites: chat-*, responses-*, messages-*).
 */

t.test('the official clients through the gateway', async (t) => {
  const gw = await startClientGateway(t);
  const openai = new OpenAI({ baseURL: gw.h.baseURL, apiKey: gw.key });
  const anthropic = new Anthropic({ baseURL: gw.h.origin, apiKey: gw.key });
  for (const model of CLIENT_MODELS) {
    t.test(`openai chat.completions (${model})`, async (t) => {
      const { result, rows } = await gw.during(() => openai.chat.completions.create({ model, messages: [{ role: 'user', content: 'Say hello.' }] }));
      t.equal(result.choices[0]?.message.content, SIMULATED_TEXT, 'the answer');
      t.same(summary(rows), answered(model, 'chat.completions', 1), 'one call in the ledger');
    });
    t.test(`openai responses (${model})`, async (t) => {
      const { result, rows } = await gw.during(() => openai.responses.create({ model, input: 'Say hello.' }));
      t.equal(result.output_text, SIMULATED_TEXT, 'the answer');
      t.same(summary(rows), answered(model, 'responses', 1), 'one call in the ledger');
    });
    t.test(`anthropic messages (${model})`, async (t) => {
      const { result, rows } = await gw.during(() =>
        anthropic.messages.create({ model, max_tokens: 1024, messages: [{ role: 'user', content: 'Say hello.' }] }),
      );
      t.same(result.content, [{ type: 'text', text: SIMULATED_TEXT }], 'the answer');
      t.same(summary(rows), answered(model, 'messages', 1), 'one call in the ledger');
    });
  }

  t.test('nothing left loopback', async (t) => {
    t.same(gw.outsideConnections(), [], 'every connection the clients made was to the gateway on loopback');
  });
});

import type { IncomingMessage, ServerResponse } from 'node:http';
import t from 'tap';
import { chatFormat } from '../../plugins/ingress-chat/format.js';
import { Call } from '../../src/chain/call.js';
import { ENDPOINTS } from '../helpers/endpoints.js';

/**
 * The completions a chat-ingress call can have billed (its outline's `choices`, what the ceiling
 * reserves for): `n` or `best_of`, per prompt of a legacy completions request.
 */

const choicesOf = (endpoint: 'chat.completions' | 'completions', body: Record<string, unknown>): number =>
  chatFormat.outline(
    new Call(ENDPOINTS[endpoint], { headers: {} } as IncomingMessage, {} as ServerResponse, 0, Buffer.from(JSON.stringify({ model: 'gamma-5.4', ...body }))),
  ).choices;

t.test('legacy completions: one set of completions per prompt', async (t) => {
  const cases: Array<[label: string, body: Record<string, unknown>, choices: number]> = [
    ['one string', { prompt: 'a' }, 1],
    ['an array of one string', { prompt: ['a'] }, 1],
    ['an array of three strings', { prompt: ['a', 'b', 'c'] }, 3],
    ['one prompt of token ids', { prompt: [1, 2, 3] }, 1],
    ['three prompts of token ids', { prompt: [[1], [2, 3], [4]] }, 3],
    ['an empty array', { prompt: [] }, 1],
    ['three strings, n 2', { prompt: ['a', 'b', 'c'], n: 2 }, 6],
    ['two strings, best_of 3 above n 2', { prompt: ['a', 'b'], n: 2, best_of: 3 }, 6],
  ];
  for (const [label, body, choices] of cases) t.equal(choicesOf('completions', body), choices, label);
});

t.test('chat completions: n alone', async (t) => {
  t.equal(choicesOf('chat.completions', { messages: [{ role: 'user', content: 'x' }], n: 2 }), 2);
});

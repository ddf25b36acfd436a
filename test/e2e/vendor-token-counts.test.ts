import t from 'tap';
import { MAX_TOKEN_COUNT, tokenCount } from '../../src/reference/upstream-json.js';
import { gatewayOnQueuedGamma, jsonAnswer } from '../helpers/queued-upstream.js';

/**
 * A vendor's token counts are read as whole numbers: a fraction is rounded up, an absurd count
 * is capped, anything else is 0. The ledger and the spend are integer nano-dollars; a fractional
 * count once made the key's every later call and every usage view a 500.
 */

t.test('tokenCount: whole tokens, rounded up, capped', async (t) => {
  t.same([tokenCount(3), tokenCount(3.3), tokenCount(0.0001), tokenCount(0)], [3, 4, 1, 0]);
  t.same([tokenCount(-1), tokenCount(Number.NaN), tokenCount('7'), tokenCount(null)], [0, 0, 0, 0]);
  t.same([tokenCount(Number.POSITIVE_INFINITY), tokenCount(1e300)], [MAX_TOKEN_COUNT, MAX_TOKEN_COUNT]);
});

t.test('a reply whose counts are fractions is billed in whole tokens, and the key and its usage views go on working', async (t) => {
  const { upstream, h, id, key, db } = await gatewayOnQueuedGamma(t);
  const reply = (usage: object) => ({
    id: 'x',
    object: 'chat.completion',
    created: 1,
    model: 'gamma-5.4',
    choices: [{ index: 0, message: { role: 'assistant', content: 'Hi' }, finish_reason: 'stop' }],
    usage,
  });
  upstream.answers.push(jsonAnswer(reply({ prompt_tokens: 3.3, completion_tokens: 10.3, total_tokens: 13.6 })));
  upstream.answers.push(jsonAnswer(reply({ prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 })));
  const call = () => h.client(key).chat.completions.create({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'Hi' }] });
  await call();
  t.match(db.rows(id).at(-1), { prompt_tokens: 4, completion_tokens: 11 }, 'the ledger bills whole tokens, rounded up');
  t.ok(Number.isSafeInteger(Number(db.rows(id).at(-1)?.list_nano)), 'its cost is an integer');
  t.equal((await call()).choices[0]?.message.content, 'Hi', 'the next call of the key is served');
  const usage = await fetch(`${h.origin}/v1/usage`, { headers: { authorization: `Bearer ${key}` } });
  t.equal(usage.status, 200, 'the usage report answers');
  const all = await h.admin('GET', '/usage');
  t.equal(all.status, 200, `the admin usage view answers`);
  t.equal((await h.admin('GET', '/usage/keys')).status, 200, 'the dashboard key table answers');
});

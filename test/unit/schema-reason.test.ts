import t from 'tap';
import { checkResponsesBody } from '../../plugins/ingress-responses/schema.js';
import { checkMessagesBody } from '../../plugins/ingress-messages/schema.js';
import { checkRequestBody } from '../../plugins/ingress-chat/schema.js';
import { compileValidator } from '../../src/config/validate.js';

/** Validation messages are written for people: a wrong type reads "must be a string or an array", not Ajv's "must be string,array". */

t.test('a wrong type names the types in words, on every ingress', async (t) => {
  t.same(checkResponsesBody({ model: 'm', input: 5 }), { param: 'input', message: 'input must be a string or an array.' });
  t.same(checkMessagesBody('generate', { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }], system: 5 }), {
    param: 'system',
    message: 'system must be a string or an array.',
  });
  t.same(checkMessagesBody('generate', { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'x' }], metadata: { user_id: 5 } }), {
    param: 'metadata.user_id',
    message: 'metadata.user_id must be a string or null.',
  });
  t.same(checkRequestBody('chat.completions', { model: 'm', messages: [{ role: 'user', content: 'x' }], temperature: 'hot' }), {
    param: 'temperature',
    message: 'temperature must be a number or null.',
  });
});

t.test('the configuration says the same', async (t) => {
  const check = compileValidator<unknown>({ type: 'object', properties: { port: { type: 'integer' }, list: { type: ['array', 'object', 'null'] } } }, 'x.yaml');
  t.throws(() => check({ port: 'eighty' }), { message: 'x.yaml: /port must be an integer' });
  t.throws(() => check({ list: 1 }), { message: 'x.yaml: /list must be an array, an object or null' });
});

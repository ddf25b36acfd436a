import t from 'tap';
import { GatewayError } from '../../src/http/errors.js';

/** A refusal (4xx) is built without a stack trace, which cost a refused call more than its lookup; a 5xx keeps its stack for the log. */

t.test('a 4xx carries no stack frames, a 5xx does, and the stack depth setting is left as it was', async (t) => {
  const depth = Error.stackTraceLimit;
  const refusal = new GatewayError(401, 'Invalid API key.');
  const fault = new GatewayError(500, 'No plugin resolved the model.');
  t.equal(Error.stackTraceLimit, depth);
  t.notMatch(refusal.stack ?? '', /\n\s+at /);
  t.match(fault.stack ?? '', /\n\s+at /);
  t.match(refusal, { status: 401, code: 'invalid_api_key', message: 'Invalid API key.', name: 'GatewayError' });
  t.type(refusal, Error);
});

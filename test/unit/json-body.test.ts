import t from 'tap';
import { MAX_JSON_DEPTH, parseJsonBody, parseJsonBodyInSteps } from '../../src/chain/json-body.js';
import { GatewayError } from '../../src/http/errors.js';

/** The request body is parsed once and its nesting bounded on the parsed value: the bound is exact, and text inside strings never counts. */

const objects = (levels: number): string => `${'{"a":'.repeat(levels - 1)}{"b":1}${'}'.repeat(levels - 1)}`;
const arrays = (levels: number): string => `{"a":${'['.repeat(levels - 1)}1${']'.repeat(levels - 1)}}`;
const refusal = (text: string): string | null => {
  try {
    parseJsonBody(Buffer.from(text));
    return null;
  } catch (error) {
    t.type(error, GatewayError);
    return (error as GatewayError).message;
  }
};

t.test('a body exactly as deep as the bound is read; one level more is the 400 naming the bound', async (t) => {
  for (const [shape, body] of [
    ['objects', objects],
    ['arrays in an object', arrays],
  ] as const) {
    t.equal(refusal(body(MAX_JSON_DEPTH)), null, `${shape}: ${MAX_JSON_DEPTH} levels pass`);
    t.match(refusal(body(MAX_JSON_DEPTH + 1)), /deeper than 128 levels/, `${shape}: ${MAX_JSON_DEPTH + 1} levels are refused`);
  }
  t.match(refusal(objects(200_000)), /deeper than 128 levels/, '200,000 levels: refused, not a stack overflow');
});

t.test('brackets inside strings are text, not nesting', async (t) => {
  const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: `${'[{'.repeat(5000)} "\\" ${'}]'.repeat(10)}` }] });
  t.same(parseJsonBody(Buffer.from(body)).model, 'm');
});

t.test('what is not a JSON object in UTF-8 is the 400 saying which', async (t) => {
  t.match(refusal(''), /empty/);
  t.match(refusal('{"a":'), /not valid JSON/);
  t.match(refusal('[1]'), /must be a JSON object/);
  t.match(refusal('"x"'), /must be a JSON object/);
  t.throws(() => parseJsonBody(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d])), /not valid UTF-8/);
});

t.test('a large body parsed in steps lets other I/O run between them, and reads and refuses exactly as the one-step parse', async (t) => {
  const large = Buffer.from(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'tok '.repeat(64 * 1024) }] }));
  const order: string[] = [];
  const parsing = parseJsonBodyInSteps(large).then((body) => order.push(`parsed ${String(body.model)}`));
  setImmediate(() => order.push('another call'));
  await parsing;
  t.same(order, ['another call', 'parsed m'], 'an immediate queued after the parse began ran before it ended');
  t.same(await parseJsonBodyInSteps(large), parseJsonBody(large));
  for (const text of [objects(MAX_JSON_DEPTH + 1), '{"a":', '[1]']) {
    await t.rejects(parseJsonBodyInSteps(Buffer.from(text)), { message: refusal(text) ?? 'no refusal' }, text.slice(0, 12));
  }
});

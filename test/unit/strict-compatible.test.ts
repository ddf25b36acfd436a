import t from 'tap';
import { strictCompatible } from '../../src/neutral/strict-compatible.js';

/** Which schemas are strict-compatible: what gamma is sent and the Responses echo says for a tool or format without `strict`. */

const closed = (properties: Record<string, unknown>): Record<string, unknown> => ({
  type: 'object',
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});

t.test('strict-compatible: an object root whose every object is closed and requires every member', async (t) => {
  t.ok(strictCompatible(closed({})));
  t.ok(
    strictCompatible(
      closed({
        city: { type: 'string' },
        at: closed({ lat: { type: 'number' } }),
        tags: { type: 'array', items: closed({ k: { type: ['string', 'null'] } }) },
      }),
    ),
  );
  t.ok(strictCompatible({ ...closed({ a: { $ref: '#/$defs/a' } }), $defs: { a: closed({ b: { type: 'string' } }) } }));
  t.ok(strictCompatible(closed({ u: { anyOf: [closed({ x: { type: 'string' } }), { type: 'null' }] } })));
});

t.test('not compatible: anything else', async (t) => {
  for (const [why, schema] of [
    ['no schema', null],
    ['an array root', { type: 'array', items: { type: 'string' } }],
    ['open root', { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }],
    ['an optional member', { ...closed({ a: { type: 'string' }, b: { type: 'string' } }), required: ['a'] }],
    ['an open nested object', closed({ at: { type: 'object', properties: {} } })],
    ['an open object in items', closed({ list: { type: 'array', items: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] } } })],
    ['an open object in a union', closed({ u: { anyOf: [{ type: 'object', properties: {} }, { type: 'null' }] } })],
    ['an open definition', { ...closed({}), $defs: { a: { type: 'object', properties: {} } } }],
  ] as const) {
    t.notOk(strictCompatible(schema), why);
  }
});

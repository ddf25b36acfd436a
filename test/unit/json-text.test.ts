import t from 'tap';
import { memberEdits, withMembers } from '../../src/json-text/member-edits.js';
import { objectAt, spliced } from '../../src/json-text/spans.js';

/** Members set in a JSON text where they stand (src/json-text/member-edits.ts), every other byte as it came. */

const text = (bytes: Buffer | null): string | null => bytes?.toString() ?? null;

t.test('a member set where it stands; the others, spacing and numbers as they came', async (t) => {
  const body = Buffer.from('{ "model" : "a" ,\n "n": 1.10, "big": 12345678901234567891, "inner": {"model": "x"} }');
  t.equal(text(withMembers(body, [], { model: 'b' })), '{ "model" : "b" ,\n "n": 1.10, "big": 12345678901234567891, "inner": {"model": "x"} }');
  t.equal(
    text(withMembers(body, ['inner'], { model: 'y' })),
    '{ "model" : "a" ,\n "n": 1.10, "big": 12345678901234567891, "inner": {"model": "y"} }',
    'inside',
  );
  t.equal(withMembers(body, ['absent'], { model: 'y' }), null, 'an object on the way absent');
  t.equal(withMembers(body, ['n'], { model: 'y' }), null, 'not an object');
});

t.test('absent members are added last, in the order given, with one comma each, even to an empty object', async (t) => {
  t.equal(text(withMembers(Buffer.from('{"a":1 }'), [], { b: { c: true }, d: 'e' })), '{"a":1,"b":{"c":true},"d":"e" }');
  t.equal(text(withMembers(Buffer.from(' { } '), [], { b: 1, d: 2 })), ' {"b":1,"d":2 } ');
  t.equal(text(withMembers(Buffer.from('{"a":1,"b":2}'), [], { b: 3, c: 4 })), '{"a":1,"b":3,"c":4}', 'one set, one added');
  t.same(JSON.parse(text(withMembers(Buffer.from('{"a":1}'), [], { a: 2, b: [1] })) ?? ''), { ...{ a: 1 }, ...{ a: 2, b: [1] } }, 'as a spread reads');
});

t.test('a member that stands twice: null, so the caller writes the body from what it read', async (t) => {
  const twice = Buffer.from('{"model":"a","model":"b"}');
  t.equal(withMembers(twice, [], { model: 'c' }), null);
  t.equal(memberEdits(objectAt(twice, 0), { other: 1, model: 'c' }), null);
  t.equal(text(spliced(twice, memberEdits(objectAt(twice, 0), {}) ?? [])), '{"model":"a","model":"b"}', 'nothing to set: nothing changed');
});

import t from 'tap';
import { alphaStrictSchema } from '../../plugins/vendor-alpha/schema.js';
import { betaSchema } from '../../plugins/vendor-beta/schema.js';
import { unresolvableRefs, withDefsNamedDefs } from '../../src/neutral/json-schema.js';
import { effectiveStrict, strictCompatible } from '../../src/neutral/strict-compatible.js';

/**
 * The schema rewrites of structured outputs, on literal schemas as the clients send them: the
 * AI SDK's and LangChain's zod output (`$schema`, `additionalProperties: false`, nullable unions,
 * optional fields left out of `required`), the Agents SDK's strict form (every field required,
 * optional ones `anyOf` with null), draft-07 `definitions`, and what alpha cannot compile.
 */

/** zod-to-json-schema / zod 4 `toJSONSchema` of `z.object({city: z.string().min(1), days: z.number().int().min(1).max(7), unit: z.enum(['c','f']).optional(), note: z.string().nullable()})`. */
const ZOD_AI_SDK = {
  $schema: 'http://json-schema.org/draft-07/schema#',
  type: 'object',
  properties: {
    city: { type: 'string', minLength: 1 },
    days: { type: 'integer', minimum: 1, maximum: 7 },
    unit: { type: 'string', enum: ['c', 'f'] },
    note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  },
  required: ['city', 'days', 'note'],
  additionalProperties: false,
};

/** The Agents SDK's strict tool schema: every property required, the optional one a union with null. */
const AGENTS_SDK = {
  type: 'object',
  properties: { city: { type: 'string', description: 'The city' }, unit: { type: ['string', 'null'], enum: ['c', 'f', null] } },
  required: ['city', 'unit'],
  additionalProperties: false,
};

/** LangChain's `withStructuredOutput(zod)` with a nested object and a date-time and a pattern. */
const LANGCHAIN = {
  type: 'object',
  properties: {
    when: { type: 'string', format: 'date-time' },
    code: { type: 'string', pattern: '^[A-Z]{3}$', format: 'iata' },
    stops: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, minItems: 2 },
  },
  required: ['when', 'code', 'stops'],
  $schema: 'http://json-schema.org/draft-07/schema#',
};

t.test('alpha: every object closed, unenforced constraints folded into the description, $schema dropped', async (t) => {
  t.same(
    alphaStrictSchema(ZOD_AI_SDK),
    {
      schema: {
        type: 'object',
        properties: {
          city: { type: 'string', description: '{minLength: 1}' },
          days: { type: 'integer', description: '{minimum: 1, maximum: 7}' },
          unit: { enum: ['c', 'f'] },
          note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
        },
        additionalProperties: false,
        required: ['city', 'days', 'note'],
      },
      optional: 1,
      unions: 1,
    },
    'the optional unit is counted, the nullable note is a union',
  );
  t.same(
    alphaStrictSchema(LANGCHAIN),
    {
      schema: {
        type: 'object',
        properties: {
          when: { type: 'string', format: 'date-time' },
          code: { type: 'string', description: '{pattern: "^[A-Z]{3}$", format: "iata"}' },
          stops: {
            type: 'array',
            items: { type: 'object', properties: { name: { type: 'string' } }, additionalProperties: false, required: ['name'] },
            description: '{minItems: 2}',
          },
        },
        additionalProperties: false,
        required: ['when', 'code', 'stops'],
      },
      optional: 0,
      unions: 0,
    },
    'a nested object closed too; formats alpha enforces kept, others folded; minItems 2 folded',
  );
  t.same(
    alphaStrictSchema(AGENTS_SDK),
    {
      schema: {
        type: 'object',
        properties: { city: { type: 'string', description: 'The city' }, unit: { enum: ['c', 'f', null] } },
        additionalProperties: false,
        required: ['city', 'unit'],
      },
      optional: 0,
      unions: 0,
    },
    'an enum stands for its type',
  );
  t.same(
    alphaStrictSchema({
      properties: { a: { oneOf: [{ type: 'string', description: 'Text' }, { type: 'integer' }] }, b: { type: 'string', description: 'Kept', maxLength: 3 } },
    }),
    {
      schema: {
        type: 'object',
        properties: {
          a: { anyOf: [{ type: 'string', description: 'Text' }, { type: 'integer' }] },
          b: { type: 'string', description: 'Kept\n\n{maxLength: 3}' },
        },
        additionalProperties: false,
      },
      optional: 2,
      unions: 1,
    },
    'a root without a type is an object; oneOf is anyOf; a folded constraint follows the description',
  );
});

t.test('alpha: draft-07 definitions move under $defs, references follow', async (t) => {
  const written = alphaStrictSchema({
    type: 'object',
    properties: { home: { $ref: '#/definitions/Place' } },
    required: ['home'],
    definitions: { Place: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  });
  t.same(written, {
    schema: {
      $defs: { Place: { type: 'object', properties: { city: { type: 'string' } }, additionalProperties: false, required: ['city'] } },
      type: 'object',
      properties: { home: { $ref: '#/$defs/Place' } },
      additionalProperties: false,
      required: ['home'],
    },
    optional: 0,
    unions: 0,
  });
});

t.test('alpha: what it cannot compile is outside the subset, with the reason', async (t) => {
  t.match(
    alphaStrictSchema({ type: 'object', properties: { kids: { type: 'array', items: { $ref: '#' } } } }),
    { outside: /recursive/ },
    'a reference to the root',
  );
  t.match(
    alphaStrictSchema({
      type: 'object',
      properties: { n: { $ref: '#/$defs/Node' } },
      $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } } },
    }),
    { outside: /recursive/ },
    'a definition that reaches itself',
  );
  t.match(alphaStrictSchema({ anyOf: [{ type: 'object' }, { type: 'string' }] }), { outside: /root is a union/ });
  t.match(alphaStrictSchema({ type: 'object', properties: { any: {} } }), { outside: /#\/properties\/any says nothing of its type/ }, 'zod any()');
  t.match(alphaStrictSchema({ type: 'object', properties: { x: { $ref: 'https://example.com/x.json' } } }), { outside: /does not name one of its own \$defs/ });
});

t.test('beta: only its keywords, the rest folded; const as a one-value enum; a $ref alone', async (t) => {
  t.same(
    betaSchema(ZOD_AI_SDK),
    {
      type: 'object',
      properties: {
        city: { type: 'string', description: '{minLength: 1}' },
        days: { type: 'integer', minimum: 1, maximum: 7 },
        unit: { type: 'string', enum: ['c', 'f'] },
        note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      },
      required: ['city', 'days', 'note'],
      additionalProperties: false,
    },
    'minimum and maximum are beta keywords; minLength is not; $schema dropped',
  );
  t.same(
    betaSchema({
      type: 'object',
      properties: { kind: { const: 'a', description: 'Kind' }, ref: { $ref: '#/definitions/X', description: 'dropped' } },
      definitions: { X: { type: 'string', pattern: 'x+' } },
    }),
    {
      type: 'object',
      properties: { kind: { enum: ['a'], description: 'Kind' }, ref: { $ref: '#/$defs/X' } },
      $defs: { X: { type: 'string', description: '{pattern: "x+"}' } },
    },
  );
  t.same(
    betaSchema(LANGCHAIN).properties,
    {
      when: { type: 'string', format: 'date-time' },
      code: { type: 'string', format: 'iata', description: '{pattern: "^[A-Z]{3}$"}' },
      stops: { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, minItems: 2 },
    },
    'format and minItems are beta keywords',
  );
});

t.test('strict compatibility as the reference API judges it, and the Responses default', async (t) => {
  t.equal(strictCompatible(AGENTS_SDK), true, "the Agents SDK's form");
  t.equal(strictCompatible(ZOD_AI_SDK), false, 'an optional property (unit) is not in required');
  t.equal(strictCompatible({ ...AGENTS_SDK, additionalProperties: undefined }), false, 'an open object');
  t.equal(
    strictCompatible({
      type: 'object',
      properties: { o: { type: 'object', properties: {}, additionalProperties: false, required: [] } },
      required: ['o'],
      additionalProperties: false,
    }),
    true,
    'nested closed object',
  );
  t.equal(
    strictCompatible({
      type: 'object',
      properties: { o: { type: 'object', properties: { a: { type: 'string' } } } },
      required: ['o'],
      additionalProperties: false,
    }),
    false,
    'a nested open object',
  );
  t.equal(
    strictCompatible({
      type: 'object',
      properties: { o: { $ref: '#/$defs/O' } },
      required: ['o'],
      additionalProperties: false,
      $defs: { O: { type: 'object', properties: {} } },
    }),
    false,
    'an open definition',
  );
  t.equal(strictCompatible({ anyOf: [AGENTS_SDK] }), false, 'a root that is not an object');
  t.equal(effectiveStrict({ parameters: AGENTS_SDK }), true, 'absent: compatible → strict');
  t.equal(effectiveStrict({ strict: null, parameters: ZOD_AI_SDK }), false, 'null: incompatible → not strict');
  t.equal(effectiveStrict({ strict: true, parameters: ZOD_AI_SDK }), true, "the caller's true stands");
  t.equal(effectiveStrict({ strict: false, parameters: AGENTS_SDK }), false, "the caller's false stands");
});

t.test('the shared helpers: definitions renamed, references judged', async (t) => {
  t.same(withDefsNamedDefs({ type: 'object', $defs: { A: { type: 'string' } }, definitions: { B: { $ref: '#/definitions/A' } } }), {
    type: 'object',
    $defs: { A: { type: 'string' }, B: { $ref: '#/$defs/A' } },
  });
  t.equal(
    unresolvableRefs({ type: 'object', properties: { a: { $ref: '#/$defs/A' } }, $defs: { A: { $ref: '#/$defs/B' }, B: { type: 'string' } } }),
    null,
    'a chain without a cycle',
  );
});

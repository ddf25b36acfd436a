import type { JsonObject } from '../../src/plugin-api.js';
import { foldedDescription, unresolvableRefs, withDefsNamedDefs } from '../../src/toolkit/json-schema.js';

/**
 * A JSON Schema rewritten into the subset alpha's structured outputs compile into a grammar
 * (`output_config.format`, tools with `strict: true`), as the vendor's own SDK rewrites it
 * (docs/vendor-formats.md#structured-outputs): every object closed (`additionalProperties: false`),
 * `oneOf` read as `anyOf`, string formats and `minItems` only where alpha enforces them, and every
 * other constraint (`minimum`, `maxLength`, `pattern`, …) kept as text in the node's
 * `description`. `required` stays as given: alpha allows optional properties. What cannot be
 * compiled at all — a recursive schema, a union at the root, a node that says nothing of its
 * type — is outside the subset, and the caller of this decides what to do instead.
 */

/** The string formats alpha's grammar enforces. */
const STRING_FORMATS: ReadonlySet<string> = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);

export interface AlphaSchema {
  schema: JsonObject;
  /** Properties not in their object's `required`, at any depth: alpha limits them per request. */
  optional: number;
  /** Properties whose schema is a union (`anyOf`, a list of types), at any depth: likewise limited. */
  unions: number;
}

class OutsideSubset extends Error {}

const isPrimitive = (value: unknown): boolean => value === null || typeof value !== 'object';
const typesOf = (type: unknown): unknown[] => (Array.isArray(type) ? type : [type]);
const isUnion = (schema: JsonObject): boolean => Array.isArray(schema['anyOf']) || (Array.isArray(schema['type']) && schema['type'].length > 1);

/** The schema in alpha's subset, or why it is outside it. */
export function alphaStrictSchema(input: JsonObject): AlphaSchema | { outside: string } {
  const schema = withDefsNamedDefs(input);
  if (['anyOf', 'oneOf', 'allOf'].some((key) => key in schema)) return { outside: 'its root is a union (anyOf, oneOf or allOf), not an object' };
  const refs = unresolvableRefs(schema);
  if (refs) return { outside: refs };
  const counts = { optional: 0, unions: 0 };
  try {
    // The formats' readers take a root without a type as an object.
    const out = node({ type: 'object', ...schema }, counts, '#');
    return { schema: out, ...counts };
  } catch (error) {
    if (error instanceof OutsideSubset) return { outside: error.message };
    throw error;
  }
}

function node(source: JsonObject, counts: { optional: number; unions: number }, path: string): JsonObject {
  const rest: JsonObject = { ...source };
  const take = (key: string): unknown => {
    const value = rest[key];
    delete rest[key];
    return value;
  };
  const out: JsonObject = {};
  const defs = take('$defs') as JsonObject | undefined;
  if (defs) out['$defs'] = Object.fromEntries(Object.entries(defs).map(([name, def]) => [name, node(def as JsonObject, counts, `${path}/$defs/${name}`)]));
  const ref = take('$ref');
  // A reference stands alone in the subset: its siblings are dropped, as alpha's SDK drops them.
  if (typeof ref === 'string') return { ...out, $ref: ref };
  if (Array.isArray(rest['enum']) && rest['enum'].length && rest['enum'].every(isPrimitive)) out['enum'] = take('enum');
  if (rest['const'] !== undefined && isPrimitive(rest['const'])) out['const'] = take('const');
  const literal = 'enum' in out || 'const' in out;
  const declared = take('type');
  const [anyOf, oneOf, allOf] = [take('anyOf'), take('oneOf'), take('allOf')];
  const variants = (list: unknown[], key: string): JsonObject[] => list.map((variant, i) => node(variant as JsonObject, counts, `${path}/${key}/${i}`));
  if (Array.isArray(anyOf)) out['anyOf'] = variants(anyOf, 'anyOf');
  else if (Array.isArray(oneOf)) out['anyOf'] = variants(oneOf, 'oneOf');
  else if (Array.isArray(allOf)) out['allOf'] = variants(allOf, 'allOf');
  else if (!literal) {
    if (declared === undefined) throw new OutsideSubset(`${path} says nothing of its type (no type, enum, const, $ref or union)`);
    out['type'] = declared;
  }
  const types = literal ? [] : typesOf(declared);
  for (const key of ['title', 'description']) if (rest[key] !== undefined) out[key] = take(key);
  if (types.includes('object')) {
    const properties = (take('properties') ?? {}) as JsonObject;
    const required = take('required');
    const named = Array.isArray(required) ? required : [];
    out['properties'] = Object.fromEntries(
      Object.entries(properties).map(([name, property]) => {
        const written = node(property as JsonObject, counts, `${path}/properties/${name}`);
        if (!named.includes(name)) counts.optional += 1;
        if (isUnion(written)) counts.unions += 1;
        return [name, written];
      }),
    );
    take('additionalProperties');
    out['additionalProperties'] = false;
    if (required !== undefined) out['required'] = required;
  }
  if (types.includes('string') && typeof rest['format'] === 'string' && STRING_FORMATS.has(rest['format'])) out['format'] = take('format');
  if (types.includes('array')) {
    const items = take('items');
    if (items !== undefined && typeof items === 'object' && items !== null) out['items'] = node(items as JsonObject, counts, `${path}/items`);
    if (rest['minItems'] === 0 || rest['minItems'] === 1) out['minItems'] = take('minItems');
  }
  const description = foldedDescription(out['description'], rest);
  if (description !== undefined) out['description'] = description;
  return out;
}

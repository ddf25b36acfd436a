import type { JsonObject } from '../../src/plugin-api.js';
import { foldedDescription, isSchemaObject, withDefsNamedDefs } from '../../src/toolkit/json-schema.js';

/**
 * A JSON Schema written with the keywords beta enforces in `responseJsonSchema` and
 * `parametersJsonSchema` (docs/vendor-formats.md#structured-outputs); every other keyword
 * (`minLength`, `pattern`, `allOf`, …) is kept as text in the node's `description`, as the
 * vendors' SDKs keep what their decoders cannot enforce. `const` is the one-value `enum` it means,
 * and `definitions` move under `$defs`.
 */

/** The keywords beta's JSON Schema fields take. */
export const BETA_SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  '$id',
  '$defs',
  '$ref',
  '$anchor',
  'type',
  'format',
  'title',
  'description',
  'enum',
  'items',
  'prefixItems',
  'minItems',
  'maxItems',
  'minimum',
  'maximum',
  'anyOf',
  'oneOf',
  'properties',
  'additionalProperties',
  'required',
  'propertyOrdering',
]);

/** Where subschemas stand among the kept keywords: one schema, a list of them, a map of names to them. */
const ONE = new Set(['items', 'additionalProperties']);
const LIST = new Set(['prefixItems', 'anyOf', 'oneOf']);
const MAP = new Set(['$defs', 'properties']);

/** The subschemas of a node written in beta's keywords. */
export function subschemas(node: JsonObject): JsonObject[] {
  return Object.entries(node)
    .flatMap(([key, value]): unknown[] => {
      if (ONE.has(key)) return [value];
      if (LIST.has(key) && Array.isArray(value)) return value;
      if (MAP.has(key) && isSchemaObject(value)) return Object.values(value);
      return [];
    })
    .filter(isSchemaObject);
}

export function betaSchema(schema: JsonObject): JsonObject {
  return node(withDefsNamedDefs(schema));
}

function node(source: JsonObject): JsonObject {
  // A reference may stand only beside other `$` keywords.
  if (typeof source['$ref'] === 'string') return Object.fromEntries(Object.entries(source).filter(([key]) => key.startsWith('$')));
  const out: JsonObject = {};
  const leftover: JsonObject = {};
  for (const [key, value] of Object.entries(source)) {
    if (key === 'const' && !('enum' in source)) out['enum'] = [value];
    else if (!BETA_SCHEMA_KEYWORDS.has(key)) leftover[key] = value;
    else if (ONE.has(key) && isSchemaObject(value)) out[key] = node(value);
    else if (LIST.has(key) && Array.isArray(value)) out[key] = (value as unknown[]).map((inner) => (isSchemaObject(inner) ? node(inner) : inner));
    else if (MAP.has(key) && isSchemaObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, isSchemaObject(inner) ? node(inner) : inner]));
    else out[key] = value;
  }
  const description = foldedDescription(out['description'], leftover);
  if (description !== undefined) out['description'] = description;
  return out;
}

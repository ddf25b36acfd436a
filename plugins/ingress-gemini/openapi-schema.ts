import type { JsonObject } from '../../src/plugin-api.js';
import { isObject } from '../../src/toolkit/json.js';

/**
 * Google's OpenAPI-subset `Schema` (`parameters`, `responseSchema`: `type: "OBJECT"`,
 * `nullable`) as the JSON Schema the neutral request carries (`parametersJsonSchema`,
 * `responseJsonSchema` need nothing): types lower-cased, `nullable: true` as a `null` type,
 * `propertyOrdering` (Google's own ordering hint, no JSON Schema keyword) left out.
 */

const NESTED_LISTS = ['anyOf', 'prefixItems'] as const;

export function jsonSchemaOf(schema: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [name, value] of Object.entries(schema)) {
    if (name === 'nullable' || name === 'propertyOrdering') continue;
    if (name === 'type' && typeof value === 'string') out['type'] = value.toLowerCase();
    else if (name === 'items' && isObject(value)) out['items'] = jsonSchemaOf(value);
    else if (name === 'properties' && isObject(value))
      out['properties'] = Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, isObject(inner) ? jsonSchemaOf(inner) : inner]));
    else if ((NESTED_LISTS as readonly string[]).includes(name) && Array.isArray(value))
      out[name] = value.map((inner: unknown) => (isObject(inner) ? jsonSchemaOf(inner) : inner));
    else out[name] = value;
  }
  if (schema['nullable'] === true && typeof out['type'] === 'string') out['type'] = [out['type'], 'null'];
  return out;
}

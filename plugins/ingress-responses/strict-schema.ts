import { isObject } from '../../src/plugin-api.js';

/**
 * Whether a JSON schema can be enforced in strict mode as written: its root is an object, and
 * every object in it forbids other members (`additionalProperties: false`) and requires every
 * member it lists (an optional one is a union with null). The Responses API makes a function
 * tool strict when it does not say (`strict` absent) and its parameters are such a schema.
 */
export function strictCompatible(schema: unknown): boolean {
  return isObject(schema) && schema['type'] === 'object' && strictNode(schema);
}

/** The sub-schemas a node holds: its members, items and alternatives, and its definitions. */
function children(node: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  for (const key of ['properties', '$defs', 'definitions']) if (isObject(node[key])) out.push(...Object.values(node[key]));
  for (const key of ['anyOf', 'allOf', 'oneOf', 'prefixItems']) if (Array.isArray(node[key])) out.push(...(node[key] as unknown[]));
  if (node['items'] !== undefined) out.push(...(Array.isArray(node['items']) ? (node['items'] as unknown[]) : [node['items']]));
  return out;
}

function strictNode(node: unknown): boolean {
  if (!isObject(node)) return typeof node === 'boolean';
  const isObjectNode = node['type'] === 'object' || (Array.isArray(node['type']) && node['type'].includes('object')) || isObject(node['properties']);
  if (isObjectNode) {
    if (node['additionalProperties'] !== false) return false;
    const required = Array.isArray(node['required']) ? (node['required'] as unknown[]) : [];
    if (isObject(node['properties']) && !Object.keys(node['properties']).every((key) => required.includes(key))) return false;
  }
  return children(node).every(strictNode);
}

import { isSchemaObject } from './json-schema.js';

/**
 * Whether a schema meets the reference format's strict subset (docs/vendor-formats.md#structured-outputs):
 * an object at its root, and every object in it closed (`additionalProperties: false`) with every
 * property required (an optional one is written as a union with `null`). The Responses API reads an
 * absent `strict` on a function tool as "strict when the schema is compatible", so this one check
 * decides both what gamma is sent and what the response echoes.
 */
export function strictCompatible(schema: unknown): boolean {
  if (!isSchemaObject(schema) || schema['type'] !== 'object') return false;
  return nodeCompatible(schema);
}

/** Subschemas stand under these keywords as one schema, a list of them, or a map of names to them. */
const ONE = ['items', 'not', 'if', 'then', 'else', 'contains', 'additionalItems'];
const LIST = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const MAP = ['properties', '$defs', 'definitions', 'patternProperties'];

function nodeCompatible(node: unknown): boolean {
  if (Array.isArray(node)) return node.every(nodeCompatible);
  if (!isSchemaObject(node)) return true;
  const types = Array.isArray(node['type']) ? (node['type'] as unknown[]) : [node['type']];
  if (types.includes('object') || isSchemaObject(node['properties'])) {
    if (node['additionalProperties'] !== false) return false;
    const required = Array.isArray(node['required']) ? (node['required'] as unknown[]) : [];
    if (!Object.keys(isSchemaObject(node['properties']) ? node['properties'] : {}).every((name) => required.includes(name))) return false;
  }
  const subschemas = [
    ...ONE.map((key) => node[key]),
    ...LIST.flatMap((key) => (Array.isArray(node[key]) ? (node[key] as unknown[]) : [])),
    ...MAP.flatMap((key) => (isSchemaObject(node[key]) ? Object.values(node[key]) : [])),
  ];
  return subschemas.every(nodeCompatible);
}

/** A Responses function tool as the caller sent it: `strict` and `parameters` as they came. */
export interface ResponsesFunctionTool {
  strict?: unknown;
  parameters?: unknown;
}

/**
 * The `strict` a Responses function tool has in effect: the caller's `true` or `false`, or when
 * absent (or null) whether its schema is strict-compatible, as the reference API decides it.
 */
export const effectiveStrict = (tool: ResponsesFunctionTool): boolean => (typeof tool.strict === 'boolean' ? tool.strict : strictCompatible(tool.parameters));

import { unresolvableRefs } from '../../src/toolkit/json-schema.js';

/**
 * The simulator's checks of what alpha compiles into a grammar (`output_config.format`, tools
 * with `strict: true`), as the real API answers them: a keyword outside its subset, an object not
 * closed, a recursive schema, a root union in a tool, or more than its limits per request is a
 * 400. A translator that sends a schema unrewritten fails here as it would against the vendor.
 */

type Json = Record<string, unknown>;

export class SchemaRefused extends Error {}

const COMMON = new Set(['type', 'enum', 'const', 'anyOf', 'allOf', '$ref', '$defs', 'description', 'title', 'default']);
const BY_TYPE: Readonly<Record<string, ReadonlySet<string>>> = {
  object: new Set(['properties', 'required', 'additionalProperties']),
  string: new Set(['format']),
  array: new Set(['items', 'minItems']),
};
const FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'uri', 'ipv4', 'ipv6', 'uuid']);
const LIMITS = { tools: 20, optional: 24, unions: 16 };

interface Counts {
  optional: number;
  unions: number;
}

function check(node: Json, counts: Counts): void {
  const types = (Array.isArray(node['type']) ? node['type'] : [node['type']]).filter((type): type is string => typeof type === 'string');
  const allowed = (key: string): boolean => COMMON.has(key) || types.some((type) => BY_TYPE[type]?.has(key));
  const extra = Object.keys(node).filter((key) => !allowed(key));
  if (extra.length) throw new SchemaRefused(`For '${types.join('|') || 'untyped'}' type, properties ${extra.join(', ')} are not supported`);
  if (types.includes('object') && node['additionalProperties'] !== false)
    throw new SchemaRefused("For 'object' type, 'additionalProperties' must be explicitly set to false");
  if (typeof node['format'] === 'string' && !FORMATS.has(node['format'])) throw new SchemaRefused(`String format '${node['format']}' is not supported`);
  if (node['minItems'] !== undefined && node['minItems'] !== 0 && node['minItems'] !== 1)
    throw new SchemaRefused('minItems values other than 0 or 1 are not supported');
  const properties = (node['properties'] ?? {}) as Json;
  const required = Array.isArray(node['required']) ? node['required'] : [];
  for (const [name, property] of Object.entries(properties)) {
    const sub = property as Json;
    if (!required.includes(name)) counts.optional += 1;
    if (Array.isArray(sub['anyOf']) || (Array.isArray(sub['type']) && sub['type'].length > 1)) counts.unions += 1;
    check(sub, counts);
  }
  const nested = [
    node['items'],
    ...((node['anyOf'] ?? []) as unknown[]),
    ...((node['allOf'] ?? []) as unknown[]),
    ...Object.values((node['$defs'] ?? {}) as Json),
  ];
  for (const sub of nested) if (sub && typeof sub === 'object') check(sub as Json, counts);
}

function checkRoot(schema: Json | undefined, counts: Counts, where: string): void {
  if (!schema || typeof schema !== 'object') throw new SchemaRefused(`${where}: a schema is required`);
  const refs = unresolvableRefs(schema);
  if (refs) throw new SchemaRefused(`${where}: schemas with recursive or unresolvable references are not supported`);
  check(schema, counts);
}

/** Throws the 400's message when the body asks alpha to compile what it would refuse. */
export function checkStructuredOutputs(body: Json): void {
  const counts: Counts = { optional: 0, unions: 0 };
  const format = (body['output_config'] as Json | undefined)?.['format'] as Json | undefined;
  if (format) {
    if (format['type'] !== 'json_schema') throw new SchemaRefused("output_config.format.type: Input should be 'json_schema'");
    checkRoot(format['schema'] as Json | undefined, counts, 'output_config.format.schema');
  }
  const strict = ((body['tools'] ?? []) as Json[]).filter((tool) => tool['strict'] === true);
  if (strict.length > LIMITS.tools) throw new SchemaRefused(`Schema is too complex for compilation: at most ${LIMITS.tools} strict tools`);
  strict.forEach((tool) => {
    const schema = tool['input_schema'] as Json | undefined;
    if (schema && ['anyOf', 'oneOf', 'allOf'].some((key) => key in schema))
      throw new SchemaRefused(`tools.${String(tool['name'])}.input_schema: a union at the root is not supported`);
    checkRoot(schema, counts, `tools.${String(tool['name'])}.input_schema`);
  });
  if (counts.optional > LIMITS.optional || counts.unions > LIMITS.unions)
    throw new SchemaRefused('Schema is too complex for compilation: too many optional or union-typed parameters');
}

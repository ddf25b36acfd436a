import type { JsonObject } from '../chain/call.js';

/**
 * What every vendor's schema rewrite shares (docs/vendor-formats.md#structured-outputs): the
 * shapes a JSON Schema node can take, where its subschemas stand, and how a constraint a vendor
 * cannot enforce is kept as description text rather than dropped, the way the vendors' own SDKs do
 * it (the model still reads it; only the decoder does not enforce it).
 */

export const isSchemaObject = (value: unknown): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Keywords that name the dialect or document the schema and constrain nothing: dropped, never folded. */
const ANNOTATIONS = new Set(['$schema', '$comment']);

/**
 * `description` with the keywords left over after a vendor took what it enforces, written as
 * `{minimum: 1, maxLength: 5}` after the caller's own description (undefined: no description at all).
 */
export function foldedDescription(description: unknown, leftover: JsonObject): string | undefined {
  const entries = Object.entries(leftover).filter(([key]) => !ANNOTATIONS.has(key));
  const own = typeof description === 'string' && description !== '' ? description : undefined;
  if (!entries.length) return own;
  const folded = `{${entries.map(([key, value]) => `${key}: ${JSON.stringify(value)}`).join(', ')}}`;
  return own === undefined ? folded : `${own}\n\n${folded}`;
}

/**
 * A JSON format's description where a vendor without a field for it has a place: the schema's own
 * `description`, before what the schema said there itself.
 */
export function describedSchema(schema: JsonObject, description: string | undefined): JsonObject {
  if (description === undefined) return schema;
  const own = typeof schema['description'] === 'string' && schema['description'] !== '' ? `\n\n${schema['description']}` : '';
  return { ...schema, description: description + own };
}

/**
 * The definitions of a schema under `$defs`, wherever the caller kept them: draft-07 tools
 * (zod-to-json-schema, pydantic v1) write `definitions` and refer to `#/definitions/…`, which the
 * vendors' subsets do not name. Returned with every such reference rewritten to `#/$defs/…`.
 */
export function withDefsNamedDefs(schema: JsonObject): JsonObject {
  if (!isSchemaObject(schema['definitions'])) return schema;
  const rewrite = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(rewrite);
    if (!isSchemaObject(value)) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [
        key,
        key === '$ref' && typeof inner === 'string' ? inner.replace(/^#\/definitions\//, '#/$defs/') : rewrite(inner),
      ]),
    );
  };
  const { definitions, ...rest } = schema;
  const moved = rewrite({ ...rest, $defs: { ...(isSchemaObject(rest['$defs']) ? rest['$defs'] : {}), ...definitions } });
  return moved as JsonObject;
}

/** The definition name a local `$ref` points at (`#/$defs/Name` → `Name`), `#` for the root, or null for any other reference. */
export function refTarget(ref: string): string | null {
  if (ref === '#') return '#';
  const match = /^#\/\$defs\/([^/]+)$/.exec(ref);
  return match ? decodeURIComponent((match[1] as string).replace(/~1/g, '/').replace(/~0/g, '~')) : null;
}

/** Every `$ref` string in a schema, at any depth. */
export function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (!isSchemaObject(value)) return [];
  return Object.entries(value).flatMap(([key, inner]) => (key === '$ref' && typeof inner === 'string' ? [inner] : refsIn(inner)));
}

/**
 * Why a schema (definitions under `$defs`) cannot be compiled into a grammar, or null: a
 * reference to the root or to a definition that reaches itself makes it recursive, and a
 * reference the schema does not define (or not locally) cannot be followed.
 */
export function unresolvableRefs(schema: JsonObject): string | null {
  const defs = isSchemaObject(schema['$defs']) ? schema['$defs'] : {};
  const { $defs: _defs, ...root } = schema;
  const targets = (value: unknown): Array<string | null> => refsIn(value).map(refTarget);
  const all = [...targets(root), ...Object.values(defs).flatMap(targets)];
  if (all.includes('#')) return 'it refers to itself (recursive)';
  if (all.some((target) => target === null || !(target in defs))) return 'it has a $ref that does not name one of its own $defs';
  // Depth-first through the definitions: a definition met again on its own path is a cycle.
  const done = new Set<string>();
  const visit = (name: string, path: ReadonlySet<string>): boolean => {
    if (path.has(name)) return true;
    if (done.has(name)) return false;
    const cyclic = targets(defs[name]).some((next) => visit(next as string, new Set([...path, name])));
    done.add(name);
    return cyclic;
  };
  return Object.keys(defs).some((name) => visit(name, new Set())) ? 'it is recursive' : null;
}

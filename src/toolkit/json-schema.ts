/**
 * The caller's JSON Schemas (structured outputs, tool parameters) as vendors can take them:
 * `$defs` naming, descriptions folded where a keyword is dropped, unresolvable references found,
 * and whether a schema fits strict mode. Used by the vendor translators that map structured
 * outputs to their wire, and by the ingress that must say whether a tool is strict.
 */

export { describedSchema, foldedDescription, isSchemaObject, unresolvableRefs, withDefsNamedDefs } from '../neutral/json-schema.js';
export { effectiveStrict, strictCompatible } from '../neutral/strict-compatible.js';

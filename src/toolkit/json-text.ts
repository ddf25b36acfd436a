/**
 * A JSON text changed where a value stands, every other byte kept as it came (numbers JSON.parse
 * would round, escapes, spacing), without writing the whole text again: the spans of an object's
 * members and an array's elements, and members set in place. Used by the passthroughs of the
 * vendors that speak the caller's format (alpha, gamma).
 */

export { elementsAt, named, objectAt, skipSpace, spliced, type Edit, type Span } from '../json-text/spans.js';
export { memberEdits, withMembers } from '../json-text/member-edits.js';

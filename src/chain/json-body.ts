import { isUtf8 } from 'node:buffer';
import { invalidRequest } from '../http/errors.js';
import type { JsonObject } from './call.js';

/**
 * Deepest nesting a request body may have. JSON.parse copes with any depth, but JSON.stringify
 * and schema checks recurse: a body 5,000 levels deep overflowed the stack (a 500). Tool
 * schemas and structured inputs stay far below this.
 */
export const MAX_JSON_DEPTH = 128;

/** The deepest `[`/`{` nesting of a JSON text, outside strings (one pass, no parsing). */
export function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 91 || c === 123) {
      depth++;
      if (depth > deepest) deepest = depth;
    } else if (c === 93 || c === 125) {
      depth--;
    }
  }
  return deepest;
}

/** A request body's bytes as the JSON object every format's body is, or the 400 `invalid_json` saying why not. */
export function parseJsonBody(raw: Buffer | undefined): JsonObject {
  if (!raw || raw.length === 0) {
    throw invalidRequest('The request body is empty; send a JSON object with Content-Type: application/json.', null, 'invalid_json');
  }
  // Decoding would replace bytes that are not UTF-8 with U+FFFD: the caller's text, changed unseen.
  if (!isUtf8(raw)) throw invalidRequest('The request body is not valid UTF-8; send JSON encoded as UTF-8.', null, 'invalid_json');
  const text = raw.toString('utf8');
  if (nestingDepth(text) > MAX_JSON_DEPTH) {
    throw invalidRequest(`The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`, null, 'invalid_json');
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidRequest(`The request body is not valid JSON: ${(error as Error).message}`, null, 'invalid_json');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidRequest('The request body must be a JSON object.', null, 'invalid_json');
  }
  return value as JsonObject;
}

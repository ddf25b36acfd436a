import { isUtf8 } from 'node:buffer';
import { setImmediate } from 'node:timers/promises';
import { invalidRequest } from '../http/errors.js';
import type { JsonObject } from './call.js';

/**
 * Deepest nesting a request body may have. JSON.parse copes with any depth, but JSON.stringify
 * and schema checks recurse: a body 5,000 levels deep overflowed the stack (a 500). Tool
 * schemas and structured inputs stay far below this.
 */
export const MAX_JSON_DEPTH = 128;

/**
 * Whether `value` nests arrays and objects more than `levels` deep. It walks the parsed value's
 * containers only, stopping at the bound, so its recursion never goes deeper than `levels` and a
 * prompt's text is never read again: scanning the JSON text for brackets instead cost more than
 * parsing it (2.4 ms against 0.7 ms for a 400 KB prompt).
 */
export function nestsDeeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (nestsDeeperThan(item, levels - 1)) return true;
    return false;
  }
  for (const name in value) if (nestsDeeperThan((value as JsonObject)[name], levels - 1)) return true;
  return false;
}

/** A request body's bytes as the JSON object every format's body is, or the 400 `invalid_json` saying why not. */
export function parseJsonBody(raw: Buffer | undefined): JsonObject {
  return jsonObjectOf(decodedText(raw));
}

/**
 * `parseJsonBody` for a large body, letting other calls' I/O run between its steps: decoding and
 * parsing a 5 MB prompt each hold the event loop for several ms, and done back to back (with the
 * read's own copy just before) they delayed every stream in progress by their sum. A worker
 * thread was measured and did not pay: handing the parsed value back costs the main thread as
 * much as parsing (docs/performance.md).
 */
export async function parseJsonBodyInSteps(raw: Buffer): Promise<JsonObject> {
  await setImmediate();
  const text = decodedText(raw);
  await setImmediate();
  return jsonObjectOf(text);
}

function decodedText(raw: Buffer | undefined): string {
  if (!raw || raw.length === 0) {
    throw invalidRequest('The request body is empty; send a JSON object with Content-Type: application/json.', null, 'invalid_json');
  }
  // Decoding would replace bytes that are not UTF-8 with U+FFFD: the caller's text, changed unseen.
  if (!isUtf8(raw)) throw invalidRequest('The request body is not valid UTF-8; send JSON encoded as UTF-8.', null, 'invalid_json');
  return raw.toString('utf8');
}

function jsonObjectOf(text: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw invalidRequest(`The request body is not valid JSON: ${(error as Error).message}`, null, 'invalid_json');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalidRequest('The request body must be a JSON object.', null, 'invalid_json');
  }
  if (nestsDeeperThan(value, MAX_JSON_DEPTH)) {
    throw invalidRequest(`The request body nests arrays and objects deeper than ${MAX_JSON_DEPTH} levels.`, null, 'invalid_json');
  }
  return value as JsonObject;
}

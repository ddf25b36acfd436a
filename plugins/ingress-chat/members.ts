import { invalidRequest, type JsonObject } from '../../src/plugin-api.js';
import { firstInArray, members, memberOutside, typedMemberOutside, type Members, type MembersByType } from '../../src/toolkit/ingress.js';
import { isObject } from '../../src/toolkit/json.js';

/**
 * The members of a chat body's nested objects that the reader maps or accepts with no effect,
 * for the families whose request is written from what is read (alpha, beta; gamma is sent the
 * caller's body). Accepted with no effect: an assistant message's `annotations` (an earlier
 * answer's citations), what the official client's helpers add to an answer (`parsed`, a tool
 * call's `index` and `function.parsed_arguments`) and a tool message's `name` (the call's own name
 * is what is sent). Any
 * other member would be dropped unseen, so it is refused by name (docs/formats/chat.md).
 */

const MESSAGES: Readonly<Record<string, Members>> = {
  // A participant's `name` is read to be announced as left out (read.ts).
  system: members('role', 'content', 'name'),
  developer: members('role', 'content', 'name'),
  user: members('role', 'content', 'name'),
  assistant: members('role', 'content', 'name', 'tool_calls', 'reasoning_content', 'thinking_blocks', 'refusal', 'annotations', 'parsed'),
  tool: members('role', 'content', 'tool_call_id', 'name'),
};

// `cache_control`: a prompt-cache breakpoint (read.ts).
const PARTS: MembersByType = {
  text: members('type', 'text', 'cache_control'),
  refusal: members('type', 'refusal'),
  image_url: members('type', 'image_url', 'cache_control'),
};
const IMAGE_URL = members('url', 'detail');
const TOOL_CALL = members('id', 'type', 'function', 'index');
const CALLED = members('name', 'arguments', 'parsed_arguments');
const THINKING_BLOCK = members('type', 'thinking', 'signature', 'data');
const TOOL = members('type', 'function', 'cache_control');
const FUNCTION = members('name', 'description', 'parameters', 'strict');
const TOOL_CHOICE = members('type', 'function');
const CHOSEN = members('name');
const RESPONSE_FORMAT = members('type', 'json_schema');
const JSON_SCHEMA = members('name', 'schema', 'strict', 'description');
const STREAM_OPTIONS = members('include_usage', 'include_obfuscation');

/** A member and, when it is an object, its own members by `known`. */
const within = (value: JsonObject, at: string, own: Members, field: string, known: Members): string | undefined =>
  memberOutside(value, own, at) ?? memberOutside(value[field], known, `${at}.${field}`);

function partOutside(part: JsonObject, at: string): string | undefined {
  return typedMemberOutside(part, PARTS, at) ?? (part['type'] === 'image_url' ? memberOutside(part['image_url'], IMAGE_URL, `${at}.image_url`) : undefined);
}

function messageOutside(message: JsonObject, at: string): string | undefined {
  const known = typeof message['role'] === 'string' && Object.hasOwn(MESSAGES, message['role']) ? MESSAGES[message['role']] : undefined;
  // A role the reader does not take is its to refuse.
  if (!known) return undefined;
  return (
    memberOutside(message, known, at) ??
    firstInArray(message['content'], `${at}.content`, partOutside) ??
    firstInArray(message['tool_calls'], `${at}.tool_calls`, (call, where) => within(call, where, TOOL_CALL, 'function', CALLED)) ??
    firstInArray(message['thinking_blocks'], `${at}.thinking_blocks`, (block, where) => memberOutside(block, THINKING_BLOCK, where))
  );
}

/** Refuses (400 naming it) the first member of a nested object that a translated chat request would drop. */
export function refuseUnknownMembers(body: JsonObject): void {
  const format = body['response_format'];
  const choice = body['tool_choice'];
  const param =
    firstInArray(body['messages'], 'messages', messageOutside) ??
    firstInArray(body['tools'], 'tools', (tool, at) => within(tool, at, TOOL, 'function', FUNCTION)) ??
    (isObject(choice) ? within(choice, 'tool_choice', TOOL_CHOICE, 'function', CHOSEN) : undefined) ??
    (isObject(format) ? within(format, 'response_format', RESPONSE_FORMAT, 'json_schema', JSON_SCHEMA) : undefined) ??
    memberOutside(body['stream_options'], STREAM_OPTIONS, 'stream_options');
  if (param !== undefined) throw invalidRequest(`${param} is not a member the gateway knows for this model; it is refused rather than dropped.`, param);
}

import type { JsonObject } from '../../src/plugin-api.js';
import { firstInArray, memberOutside, members, typedMemberOutside, type MembersByType, type RequestProblem } from '../../src/toolkit/ingress.js';
import { isObject } from '../../src/toolkit/json.js';

/**
 * The members of the Responses body's nested objects (items, their parts, tools, tool_choice,
 * text.format) that the gateway reads or accepts with no effect; any other is refused by name,
 * since every family's request is written from what is read (docs/formats/responses.md).
 * Accepted with no effect: what echoes an earlier response (`id`, `status`, `phase`, an output's
 * `annotations` and `logprobs`, a reasoning item's `content`, and what the official client's parse
 * helpers add to it: `parsed_arguments`, `parsed`) and cache hints (`prompt_cache_breakpoint`).
 */

const ITEMS: MembersByType = {
  message: members('type', 'role', 'content', 'id', 'status', 'phase'),
  function_call: members('type', 'id', 'call_id', 'name', 'namespace', 'arguments', 'status', 'parsed_arguments'),
  function_call_output: members('type', 'id', 'call_id', 'output', 'status'),
  reasoning: members('type', 'id', 'summary', 'encrypted_content', 'content', 'status'),
  item_reference: members('type', 'id'),
  compaction: members('type', 'id', 'encrypted_content', 'created_by', 'status'),
};

const PARTS: MembersByType = {
  input_text: members('type', 'text', 'prompt_cache_breakpoint'),
  output_text: members('type', 'text', 'annotations', 'logprobs', 'parsed'),
  refusal: members('type', 'refusal'),
  input_image: members('type', 'image_url', 'file_id', 'detail', 'prompt_cache_breakpoint'),
};

const SUMMARY_PART = members('type', 'text');
/** Function tools and namespaces; a hosted or freeform tool's members are not read (it is left out: tools.ts). */
const FUNCTION_TOOLS: MembersByType = { function: members('type', 'name', 'description', 'parameters', 'strict', 'defer_loading') };
const TOOLS: MembersByType = { ...FUNCTION_TOOLS, namespace: members('type', 'name', 'description', 'tools') };
const CHOICES: MembersByType = { function: members('type', 'name', 'namespace'), allowed_tools: members('type', 'mode', 'tools') };
const FORMATS: MembersByType = {
  text: members('type'),
  json_object: members('type'),
  json_schema: members('type', 'name', 'schema', 'strict', 'description'),
};

function itemMemberOutside(item: JsonObject, at: string): string | undefined {
  return (
    typedMemberOutside(item, ITEMS, at, 'message') ??
    firstInArray(item['content'], `${at}.content`, (part, where) => typedMemberOutside(part, PARTS, where)) ??
    firstInArray(item['output'], `${at}.output`, (part, where) => typedMemberOutside(part, PARTS, where)) ??
    firstInArray(item['summary'], `${at}.summary`, (part, where) => memberOutside(part, SUMMARY_PART, where))
  );
}

function toolMemberOutside(tool: JsonObject, at: string): string | undefined {
  return (
    typedMemberOutside(tool, TOOLS, at) ??
    firstInArray(tool['type'] === 'namespace' ? tool['tools'] : undefined, `${at}.tools`, (inner, where) => typedMemberOutside(inner, FUNCTION_TOOLS, where))
  );
}

/** The first member the gateway does not know inside a checked body, as a 400. */
export function unknownMemberProblem(body: JsonObject): RequestProblem | undefined {
  const text = body['text'];
  const param =
    firstInArray(body['input'], 'input', itemMemberOutside) ??
    firstInArray(body['tools'], 'tools', toolMemberOutside) ??
    typedMemberOutside(body['tool_choice'], CHOICES, 'tool_choice') ??
    (isObject(text) ? typedMemberOutside(text['format'], FORMATS, 'text.format') : undefined);
  return param === undefined ? undefined : { param, message: `${param} is not a member the gateway knows; it is refused rather than dropped.` };
}

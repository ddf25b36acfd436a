import type { JsonObject } from '../../src/plugin-api.js';
import { firstInArray, memberOutside, members, typedMemberOutside, type MembersByType } from '../../src/toolkit/ingress.js';
import { isObject } from '../../src/toolkit/json.js';

/**
 * The members of a Messages body's nested objects that the reader maps, or accepts with no
 * effect (`cache_control`, a text block's `citations`: an earlier answer's), for the families
 * whose request is written from what is read (beta, gamma; alpha receives the body as it is).
 * Any other would be dropped unseen, so read.ts refuses it by name (docs/formats/messages.md).
 * Block types the reader does not take are its to refuse; they are not looked into here.
 */

const TEXT = members('type', 'text', 'cache_control', 'citations');

const BLOCKS: MembersByType = {
  text: TEXT,
  image: members('type', 'source', 'cache_control'),
  tool_use: members('type', 'id', 'name', 'input', 'cache_control'),
  tool_result: members('type', 'tool_use_id', 'content', 'is_error', 'cache_control'),
  thinking: members('type', 'thinking', 'signature'),
  redacted_thinking: members('type', 'data'),
};

const SOURCES: MembersByType = { base64: members('type', 'media_type', 'data'), url: members('type', 'url') };
const MESSAGE = members('role', 'content');
const TOOL = members('name', 'input_schema', 'description', 'type', 'strict', 'cache_control', 'defer_loading');
const TOOL_CHOICE = members('type', 'name', 'disable_parallel_tool_use');
const METADATA = members('user_id');
const FORMAT = members('type', 'schema');

/** A server tool (a versioned `type`) is left out whole by the reader: its members are not read. */
const isClientTool = (tool: JsonObject): boolean => tool['type'] === undefined || tool['type'] === null || tool['type'] === 'custom';

function blockMemberOutside(block: JsonObject, at: string): string | undefined {
  return (
    typedMemberOutside(block, BLOCKS, at) ??
    (block['type'] === 'image' ? typedMemberOutside(block['source'], SOURCES, `${at}.source`) : undefined) ??
    (block['type'] === 'tool_result' ? firstInArray(block['content'], `${at}.content`, blockMemberOutside) : undefined)
  );
}

function messageMemberOutside(message: JsonObject, at: string): string | undefined {
  return memberOutside(message, MESSAGE, at) ?? firstInArray(message['content'], `${at}.content`, blockMemberOutside);
}

/** The first member of a nested object the reader neither maps nor accepts, as its path (`tools[0].defer_loading`), or undefined. */
export function unknownMemberOf(body: JsonObject): string | undefined {
  const config = body['output_config'];
  return (
    firstInArray(body['system'], 'system', (block, at) => memberOutside(block, TEXT, at)) ??
    firstInArray(body['messages'], 'messages', messageMemberOutside) ??
    firstInArray(body['tools'], 'tools', (tool, at) => (isClientTool(tool) ? memberOutside(tool, TOOL, at) : undefined)) ??
    memberOutside(body['tool_choice'], TOOL_CHOICE, 'tool_choice') ??
    memberOutside(body['metadata'], METADATA, 'metadata') ??
    (isObject(config) ? memberOutside(config['format'], FORMAT, 'output_config.format') : undefined)
  );
}

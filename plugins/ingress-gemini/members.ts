import type { JsonObject } from '../../src/plugin-api.js';
import { firstInArray, memberOutside, members } from '../../src/toolkit/ingress.js';
import { isObject } from '../../src/toolkit/json.js';

/**
 * The members of a Gemini body's objects that the reader maps, or accepts with no effect; any
 * other would be dropped unseen by the translation, so the reader refuses it by name
 * (docs/formats/gemini.md). Names are camelCased already (body.ts).
 */

/** Top-level members of a generation (a token count reads the same). */
export const TOP_LEVEL = members('contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'safetySettings', 'cachedContent', 'labels');

/** The hosted tools Google runs itself (search, URL fetching, code execution, …): not offered to the model here, and said so. */
export const HOSTED_TOOLS: ReadonlySet<string> = members(
  'googleSearch',
  'googleSearchRetrieval',
  'urlContext',
  'codeExecution',
  'googleMaps',
  'fileSearch',
  'computerUse',
  'enterpriseWebSearch',
  'retrieval',
  'mcpServers',
);

const PART = members('text', 'thought', 'thoughtSignature', 'inlineData', 'fileData', 'functionCall', 'functionResponse');
const CONTENT = members('role', 'parts');
const INLINE_DATA = members('mimeType', 'data');
const FUNCTION_CALL = members('name', 'args', 'id');
const FUNCTION_RESPONSE = members('name', 'response', 'id');
const DECLARATION = members('name', 'description', 'parameters', 'parametersJsonSchema');
const TOOL_CONFIG = members('functionCallingConfig');
const CALLING_CONFIG = members('mode', 'allowedFunctionNames');
const GENERATION_CONFIG = members(
  'temperature',
  'topP',
  'topK',
  'maxOutputTokens',
  'stopSequences',
  'candidateCount',
  'seed',
  'presencePenalty',
  'frequencyPenalty',
  'responseMimeType',
  'responseSchema',
  'responseJsonSchema',
  'responseModalities',
  'thinkingConfig',
);
const THINKING_CONFIG = members('includeThoughts', 'thinkingBudget', 'thinkingLevel');

function partMemberOutside(part: JsonObject, at: string): string | undefined {
  return (
    memberOutside(part, PART, at) ??
    memberOutside(part['inlineData'], INLINE_DATA, `${at}.inlineData`) ??
    memberOutside(part['functionCall'], FUNCTION_CALL, `${at}.functionCall`) ??
    memberOutside(part['functionResponse'], FUNCTION_RESPONSE, `${at}.functionResponse`)
  );
}

function contentMemberOutside(content: JsonObject, at: string): string | undefined {
  return memberOutside(content, CONTENT, at) ?? firstInArray(content['parts'], `${at}.parts`, partMemberOutside);
}

function toolMemberOutside(tool: JsonObject, at: string): string | undefined {
  const other = Object.keys(tool).find((name) => tool[name] !== null && name !== 'functionDeclarations' && !HOSTED_TOOLS.has(name));
  if (other !== undefined) return `${at}.${other}`;
  return firstInArray(tool['functionDeclarations'], `${at}.functionDeclarations`, (declaration, where) => memberOutside(declaration, DECLARATION, where));
}

/** The first member the reader neither maps nor accepts, as its path (`contents[0].parts[1].videoMetadata`), or undefined. */
export function unknownMemberOf(body: JsonObject): string | undefined {
  const toolConfig = body['toolConfig'];
  const generation = body['generationConfig'];
  return (
    Object.keys(body).find((name) => body[name] !== null && !TOP_LEVEL.has(name)) ??
    firstInArray(body['contents'], 'contents', contentMemberOutside) ??
    (isObject(body['systemInstruction']) ? contentMemberOutside(body['systemInstruction'], 'systemInstruction') : undefined) ??
    firstInArray(body['tools'], 'tools', toolMemberOutside) ??
    memberOutside(toolConfig, TOOL_CONFIG, 'toolConfig') ??
    (isObject(toolConfig) ? memberOutside(toolConfig['functionCallingConfig'], CALLING_CONFIG, 'toolConfig.functionCallingConfig') : undefined) ??
    memberOutside(generation, GENERATION_CONFIG, 'generationConfig') ??
    (isObject(generation) ? memberOutside(generation['thinkingConfig'], THINKING_CONFIG, 'generationConfig.thinkingConfig') : undefined)
  );
}

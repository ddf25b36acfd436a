import type { SimRequest, SimToolChoice } from '../../src/toolkit/simulator.js';
import { BETA_SCHEMA_KEYWORDS, subschemas } from './schema.js';
import { InvalidArgument } from './simulator-thinking.js';

/**
 * The beta simulator's side of a request: the checks the real API makes that a translator could
 * break (alternating roles, named function responses, one response per call, the fields of a
 * function declaration, the calling modes, a `responseJsonSchema` in the keywords it takes), each
 * an `InvalidArgument` in its words, and the GenerateContentRequest read into the simulator's
 * neutral shape.
 */

type Json = Record<string, unknown>;

export const partsOf = (content: Json | undefined): Json[] => (content?.['parts'] ?? []) as Json[];
/** The text parts of a content, joined. */
export const textOf = (parts: Json[]): string =>
  parts
    .filter((p) => typeof p['text'] === 'string')
    .map((p) => String(p['text']))
    .join(' ');
const responseText = (part: Json): string => JSON.stringify((part['functionResponse'] as Json)['response'] ?? {});

const DECLARATION_FIELDS = new Set(['name', 'description', 'parameters', 'parametersJsonSchema', 'response', 'responseJsonSchema', 'behavior']);
const CALLING_MODES = new Set(['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED']);

function checkResponseSchema(node: Json): void {
  const unknown = Object.keys(node).find((key) => !BETA_SCHEMA_KEYWORDS.has(key));
  if (unknown !== undefined)
    throw new InvalidArgument(`Invalid JSON payload received. Unknown name "${unknown}" at 'generation_config.response_json_schema': Cannot find field.`);
  subschemas(node).forEach(checkResponseSchema);
}

/** The structured-output fields a translator could write wrong. */
function validateStructured(body: Json): void {
  ((body['tools'] ?? []) as Json[]).forEach((tool, i) => {
    ((tool['functionDeclarations'] ?? []) as Json[]).forEach((declaration, j) => {
      const unknown = Object.keys(declaration).find((key) => !DECLARATION_FIELDS.has(key));
      if (unknown !== undefined)
        throw new InvalidArgument(`Invalid JSON payload received. Unknown name "${unknown}" at 'tools[${i}].function_declarations[${j}]': Cannot find field.`);
    });
  });
  const mode = (((body['toolConfig'] as Json | undefined)?.['functionCallingConfig'] ?? {}) as Json)['mode'];
  if (mode !== undefined && !CALLING_MODES.has(String(mode)))
    throw new InvalidArgument(`Invalid value at 'tool_config.function_calling_config.mode' (${String(mode)})`);
  const schema = ((body['generationConfig'] ?? {}) as Json)['responseJsonSchema'];
  if (schema && typeof schema === 'object') checkResponseSchema(schema as Json);
}

/** Throws the API's InvalidArgument for the first rule a request breaks. */
export function validateGenerateRequest(body: Json): void {
  validateStructured(body);
  const contents = body['contents'];
  if (!Array.isArray(contents) || !contents.length) throw new InvalidArgument('contents is not specified');
  (contents as Json[]).forEach((content, i) => {
    const role = content['role'];
    if (role !== 'user' && role !== 'model') throw new InvalidArgument(`Please use a valid role: user, model.`);
    if (i > 0 && role === (contents[i - 1] as Json)['role'])
      throw new InvalidArgument('Please ensure that multiturn requests alternate between user and model.');
    const parts = partsOf(content);
    if (!parts.length) throw new InvalidArgument(`contents[${i}].parts must not be empty`);
    const responses = parts.filter((p) => p['functionResponse']);
    for (const response of responses) {
      if (!(response['functionResponse'] as Json)['name']) throw new InvalidArgument('function_response.name: Name cannot be empty.');
    }
    const previousCalls = i > 0 ? partsOf(contents[i - 1] as Json).filter((p) => p['functionCall']).length : 0;
    if (role === 'user' && previousCalls && responses.length !== previousCalls) {
      throw new InvalidArgument(
        'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.',
      );
    }
  });
}

function toolChoiceOf(config: Json | undefined): SimToolChoice {
  const calling = (config?.['functionCallingConfig'] ?? {}) as Json;
  const allowed = calling['allowedFunctionNames'];
  if (calling['mode'] === 'NONE') return 'none';
  if (calling['mode'] === 'ANY') return Array.isArray(allowed) && allowed.length === 1 ? { name: String(allowed[0]) } : 'required';
  return 'auto';
}

/** The GenerateContentRequest, read into the simulator's neutral shape. */
export function readGenerateRequest(body: Json): SimRequest {
  const contents = body['contents'] as Json[];
  const last = contents[contents.length - 1] as Json;
  const lastParts = last['role'] === 'user' ? partsOf(last) : [];
  const config = (body['generationConfig'] ?? {}) as Json;
  const declarations = ((body['tools'] ?? []) as Json[]).flatMap((tool) => (tool['functionDeclarations'] ?? []) as Json[]);
  const json = config['responseMimeType'] === 'application/json';
  return {
    texts: [textOf(partsOf(body['systemInstruction'] as Json | undefined)), ...contents.map((c) => textOf(partsOf(c)))],
    lastUserText: textOf(lastParts),
    toolResults: lastParts.filter((p) => p['functionResponse']).map(responseText),
    tools: declarations.map((d) => ({ name: String(d['name']), parameters: d['parametersJsonSchema'] ?? d['parameters'] })),
    toolChoice: toolChoiceOf(body['toolConfig'] as Json | undefined),
    jsonSchema: json ? ((config['responseJsonSchema'] ?? config['responseSchema'] ?? {}) as Json) : null,
    maxTokens: typeof config['maxOutputTokens'] === 'number' ? config['maxOutputTokens'] : null,
    choices: typeof config['candidateCount'] === 'number' ? config['candidateCount'] : 1,
  };
}

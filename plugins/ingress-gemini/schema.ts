import type { JsonObject, Operation } from '../../src/plugin-api.js';
import { schemaProblem, type RequestProblem } from '../../src/toolkit/ingress.js';
import { compileSchema } from '../../src/toolkit/json.js';

/**
 * JSON Schemas of the Gemini request bodies (member names camelCased first: body.ts): the fields
 * the gateway reads are type-checked, so that a malformed request is a 400 naming the field in
 * Gemini notation (`contents[1].parts[0].functionCall.name`). Members the schema does not know
 * pass: the reader maps them or refuses them by name. No defaults: a checked body is never changed.
 */

const string = { type: 'string' } as const;
const object = { type: 'object' } as const;
/** A count bounded by the largest exact integer (JSON reads `1e400` as Infinity). */
const count = (minimum: number): JsonObject => ({ type: 'integer', minimum, maximum: Number.MAX_SAFE_INTEGER });

const part = {
  type: 'object',
  properties: {
    text: string,
    thought: { type: 'boolean' },
    thoughtSignature: string,
    inlineData: { type: 'object', required: ['mimeType', 'data'], properties: { mimeType: string, data: string } },
    fileData: { type: 'object', required: ['fileUri'], properties: { mimeType: string, fileUri: string } },
    functionCall: { type: 'object', required: ['name'], properties: { name: string, args: object, id: string } },
    functionResponse: { type: 'object', required: ['name', 'response'], properties: { name: string, response: object, id: string } },
  },
} as const;

const content = {
  type: 'object',
  required: ['parts'],
  properties: { role: { enum: ['user', 'model', 'function'] }, parts: { type: 'array', items: part } },
} as const;

const declaration = {
  type: 'object',
  required: ['name'],
  properties: { name: string, description: string, parameters: object, parametersJsonSchema: object },
} as const;

const properties = {
  contents: { type: 'array', minItems: 1, items: content },
  systemInstruction: { type: 'object', properties: { role: string, parts: { type: 'array', items: part } } },
  tools: { type: 'array', items: { type: 'object', properties: { functionDeclarations: { type: 'array', items: declaration } } } },
  toolConfig: {
    type: 'object',
    properties: {
      functionCallingConfig: {
        type: 'object',
        properties: {
          mode: { enum: ['MODE_UNSPECIFIED', 'AUTO', 'ANY', 'NONE', 'VALIDATED'] },
          allowedFunctionNames: { type: 'array', items: string },
        },
      },
    },
  },
  generationConfig: {
    type: 'object',
    properties: {
      temperature: { type: 'number', minimum: 0, maximum: 2 },
      topP: { type: 'number', minimum: 0, maximum: 1 },
      topK: count(0),
      maxOutputTokens: count(1),
      stopSequences: { type: 'array', items: string },
      candidateCount: count(1),
      seed: { type: 'integer', minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER },
      presencePenalty: { type: 'number', minimum: -2, maximum: 2 },
      frequencyPenalty: { type: 'number', minimum: -2, maximum: 2 },
      responseMimeType: string,
      responseSchema: object,
      responseJsonSchema: object,
      responseModalities: { type: 'array', items: string },
      thinkingConfig: {
        type: 'object',
        properties: {
          includeThoughts: { type: 'boolean' },
          thinkingBudget: { type: 'integer', minimum: -1, maximum: Number.MAX_SAFE_INTEGER },
          thinkingLevel: { enum: ['THINKING_LEVEL_UNSPECIFIED', 'MINIMAL', 'LOW', 'MEDIUM', 'HIGH'] },
        },
      },
    },
  },
  safetySettings: { type: 'array', items: object },
  cachedContent: string,
  labels: { type: 'object', additionalProperties: string },
};

const VALIDATORS = {
  generate: compileSchema({ type: 'object', required: ['contents'], properties }),
  count_tokens: compileSchema({ type: 'object', properties }),
};

/** The first problem with a Gemini body (a generation or a token count), or undefined. */
export function checkGeminiBody(operation: Operation | null, body: JsonObject): RequestProblem | undefined {
  return schemaProblem(operation === 'count_tokens' ? VALIDATORS.count_tokens : VALIDATORS.generate, body);
}

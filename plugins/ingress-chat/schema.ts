import type { ValidateFunction } from 'ajv';
import { schemaProblem, type RequestProblem } from '../../src/toolkit/ingress.js';
import { compileSchema } from '../../src/toolkit/json.js';
import { REASONING_EFFORTS } from '../../src/toolkit/neutral.js';

/**
 * JSON Schemas of the reference-format request bodies: the fields the gateway relies on are
 * type-checked here so that a malformed request is a 400 naming the field, never a vendor
 * error or a crash. Unknown fields pass (the upstream judges them). Every optional field also
 * takes null, which asks nothing (what the Python client's `model_dump()` writes for unset fields).
 */

/**
 * Integers without a natural bound still get one: JSON.parse reads `1e400` as Infinity, which
 * Ajv's `integer` accepts (Infinity % 1 is NaN) and JSON.stringify sends upstream as null.
 */
const SAFE_MAX = Number.MAX_SAFE_INTEGER;
const maxTokens = { type: 'integer', minimum: 1, maximum: SAFE_MAX } as const;
const streamOptions = {
  type: ['object', 'null'],
  properties: { include_usage: { type: ['boolean', 'null'] } },
} as const;

const functionTool = {
  type: 'object',
  required: ['type', 'function'],
  properties: {
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name'],
      properties: {
        name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
        description: { type: ['string', 'null'] },
        parameters: { type: ['object', 'null'] },
        strict: { type: ['boolean', 'null'] },
      },
    },
  },
} as const;

const toolChoice = {
  anyOf: [
    { enum: ['none', 'auto', 'required', null] },
    {
      type: 'object',
      required: ['type', 'function'],
      properties: {
        type: { const: 'function' },
        function: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
      },
    },
  ],
} as const;

const responseFormat = {
  type: ['object', 'null'],
  required: ['type'],
  properties: {
    type: { enum: ['text', 'json_object', 'json_schema'] },
    json_schema: {
      type: 'object',
      properties: { description: { type: ['string', 'null'] }, strict: { type: ['boolean', 'null'] } },
    },
  },
} as const;

/** Reasoning an assistant message hands back (docs/formats/chat.md#reasoning). */
const thinkingBlock = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { enum: ['thinking', 'redacted_thinking'] },
    thinking: { type: ['string', 'null'] },
    signature: { type: ['string', 'null'] },
    data: { type: ['string', 'null'] },
  },
} as const;

const message = {
  type: 'object',
  required: ['role'],
  properties: {
    role: { enum: ['system', 'developer', 'user', 'assistant', 'tool', 'function'] },
    content: { type: ['string', 'array', 'null'] },
    tool_calls: { type: ['array', 'null'] },
    tool_call_id: { type: ['string', 'null'] },
    reasoning_content: { type: ['string', 'null'] },
    thinking_blocks: { type: ['array', 'null'], items: thinkingBlock },
    refusal: { type: ['string', 'null'] },
    annotations: { type: ['array', 'null'] },
  },
} as const;

const chatSchema = {
  type: 'object',
  required: ['messages'],
  properties: {
    messages: { type: 'array', minItems: 1, items: message },
    stream: { type: ['boolean', 'null'] },
    stream_options: streamOptions,
    max_tokens: { ...maxTokens, type: ['integer', 'null'] },
    max_completion_tokens: { ...maxTokens, type: ['integer', 'null'] },
    n: { type: ['integer', 'null'], minimum: 1, maximum: 128 },
    temperature: { type: ['number', 'null'], minimum: 0, maximum: 2 },
    top_p: { type: ['number', 'null'], minimum: 0, maximum: 1 },
    stop: { anyOf: [{ type: 'string' }, { type: 'array', maxItems: 4, items: { type: 'string' } }, { type: 'null' }] },
    user: { type: ['string', 'null'] },
    safety_identifier: { type: ['string', 'null'] },
    seed: { type: ['integer', 'null'] },
    presence_penalty: { type: ['number', 'null'], minimum: -2, maximum: 2 },
    frequency_penalty: { type: ['number', 'null'], minimum: -2, maximum: 2 },
    logprobs: { type: ['boolean', 'null'] },
    top_logprobs: { type: ['integer', 'null'], minimum: 0, maximum: 20 },
    parallel_tool_calls: { type: ['boolean', 'null'] },
    reasoning_effort: { enum: [...REASONING_EFFORTS, null] },
    tools: { type: ['array', 'null'], items: functionTool },
    tool_choice: toolChoice,
    response_format: responseFormat,
  },
} as const;

const completionsSchema = {
  type: 'object',
  required: ['prompt'],
  properties: {
    prompt: { type: ['string', 'array'] },
    stream: { type: ['boolean', 'null'] },
    stream_options: streamOptions,
    max_tokens: { ...maxTokens, type: ['integer', 'null'] },
    n: { type: ['integer', 'null'], minimum: 1, maximum: 128 },
  },
} as const;

const embeddingsSchema = {
  type: 'object',
  required: ['input'],
  properties: {
    input: { type: ['string', 'array'], minItems: 1, maxItems: 2048 },
    encoding_format: { enum: ['float', 'base64', null] },
    dimensions: { type: ['integer', 'null'], minimum: 1, maximum: SAFE_MAX },
    user: { type: ['string', 'null'] },
  },
} as const;

const VALIDATORS: Partial<Record<string, ValidateFunction>> = {
  'chat.completions': compileSchema(chatSchema),
  completions: compileSchema(completionsSchema),
  embeddings: compileSchema(embeddingsSchema),
};

/** The first problem with a request body for an endpoint, or undefined if it is well-formed. */
export function checkRequestBody(endpoint: string, body: unknown): RequestProblem | undefined {
  const validate = VALIDATORS[endpoint];
  return validate ? schemaProblem(validate, body) : undefined;
}

import type { JsonObject } from '../../src/plugin-api.js';
import { schemaProblem, type RequestProblem } from '../../src/toolkit/ingress.js';
import { compileSchema } from '../../src/toolkit/json.js';
import { REASONING_EFFORTS } from '../../src/toolkit/neutral.js';
import { unknownMemberProblem } from './members.js';

/**
 * The Responses request body (POST /v1/responses) as a JSON Schema: the type of every parameter
 * and of every input item the gateway reads, so that a malformed request is a 400 naming the
 * field in Responses notation (`input[2].call_id`). Unknown top-level parameters are refused, and
 * unknown members of nested objects (members.ts): the body is translated, so one the gateway does
 * not know would otherwise be dropped unseen.
 * What is well-formed but cannot be honoured is refused by `REFUSED` below, each with its reason
 * (docs/formats/responses.md); what can be honoured only approximately is adjusted (adjust.ts).
 */

const string = { type: 'string' } as const;
const nullable = (...types: string[]) => ({ type: [...types, 'null'] });
const name = { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' } as const;
/** `then` applies to objects whose `type` is `type`. */
const ifType = (type: string, then: object) => ({ if: { required: ['type'], properties: { type: { const: type } } }, then });

const contentPart = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['input_text', 'output_text', 'refusal', 'input_image'] } },
  allOf: [
    ifType('input_text', { required: ['text'], properties: { text: string } }),
    ifType('output_text', { required: ['text'], properties: { text: string } }),
    ifType('refusal', { required: ['refusal'], properties: { refusal: string } }),
    ifType('input_image', {
      properties: { image_url: nullable('string'), file_id: nullable('string'), detail: { enum: ['auto', 'low', 'high', 'original', null] } },
    }),
  ],
};

const outputPart = {
  type: 'object',
  required: ['type'],
  properties: { type: { const: 'input_text' } },
  allOf: [ifType('input_text', { required: ['text'], properties: { text: string } })],
};

const item = {
  type: 'object',
  properties: { type: { enum: ['message', 'function_call', 'function_call_output', 'reasoning', 'item_reference', 'compaction'] } },
  allOf: [
    // An item without a type is a message.
    {
      if: { properties: { type: { const: 'message' } } },
      then: {
        required: ['role', 'content'],
        properties: { role: { enum: ['user', 'system', 'developer', 'assistant'] }, content: { type: ['string', 'array'], items: contentPart } },
      },
    },
    ifType('function_call', {
      required: ['call_id', 'name', 'arguments'],
      properties: { call_id: { type: 'string', minLength: 1 }, name, arguments: string, namespace: nullable('string') },
    }),
    ifType('item_reference', { required: ['id'], properties: { id: { type: 'string', minLength: 1 } } }),
    // The specification bounds the sealed content at 10 MiB.
    ifType('compaction', {
      required: ['encrypted_content'],
      properties: { encrypted_content: { type: 'string', minLength: 1, maxLength: 10_485_760 }, id: nullable('string'), created_by: nullable('string') },
    }),
    ifType('function_call_output', {
      required: ['call_id', 'output'],
      properties: { call_id: { type: 'string', minLength: 1 }, output: { type: ['string', 'array'], items: outputPart } },
    }),
    ifType('reasoning', {
      required: ['summary'],
      properties: {
        summary: { type: 'array', items: { type: 'object', required: ['type', 'text'], properties: { type: { const: 'summary_text' }, text: string } } },
        encrypted_content: nullable('string'),
      },
    }),
  ],
};

const functionTool = ifType('function', {
  required: ['name'],
  properties: { name, description: nullable('string'), parameters: nullable('object'), strict: nullable('boolean'), defer_loading: nullable('boolean') },
});

/** A function tool, a `namespace` of tools, or a hosted or freeform tool (whose members are not read: it is left out, tools.ts). */
const tool = {
  type: 'object',
  required: ['type'],
  properties: { type: string },
  allOf: [
    functionTool,
    ifType('namespace', {
      required: ['name', 'tools'],
      properties: {
        name: { type: 'string', minLength: 1 },
        description: nullable('string'),
        tools: { type: 'array', items: { type: 'object', required: ['type'], properties: { type: string }, allOf: [functionTool] } },
      },
    }),
  ],
};

/** A function as a tool choice names it (with its namespace, for a namespace's function). */
const functionChoice = ifType('function', { required: ['name'], properties: { name: string, namespace: nullable('string') } });

const toolChoice = {
  anyOf: [
    { enum: ['none', 'auto', 'required'] },
    {
      type: 'object',
      required: ['type'],
      properties: { type: string },
      allOf: [
        functionChoice,
        ifType('allowed_tools', {
          required: ['mode', 'tools'],
          properties: {
            mode: { enum: ['auto', 'required'] },
            tools: { type: 'array', items: { type: 'object', required: ['type'], properties: { type: string }, allOf: [functionChoice] } },
          },
        }),
      ],
    },
  ],
};

const format = {
  type: 'object',
  required: ['type'],
  properties: { type: { enum: ['text', 'json_object', 'json_schema'] } },
  allOf: [
    ifType('json_schema', {
      required: ['name', 'schema'],
      properties: { name, schema: { type: 'object' }, strict: nullable('boolean'), description: nullable('string') },
    }),
  ],
};

const summary = { enum: ['auto', 'concise', 'detailed', null] };

/**
 * The top-level parameters accepted with no effect on every family: bookkeeping and hints that
 * change no output, never read past this check and never forwarded (docs/parameters.md keeps the
 * list; review it at each release of Codex CLI, which adds such fields). Each is still
 * type-checked.
 */
const NO_EFFECT = {
  // Codex CLI's installation, conversation, thread and turn ids, on every call.
  client_metadata: { ...nullable('object'), additionalProperties: { type: 'string' } },
  // Codex CLI's entitlement marker for OpenAI's own backend ({"cyber": "standard"}), under ChatGPT sign-in.
  access_programs: { ...nullable('object'), additionalProperties: { type: 'string' } },
  // The gateway adds no obfuscation.
  stream_options: { ...nullable('object'), additionalProperties: false, properties: { include_obfuscation: nullable('boolean') } },
  // Reasoning items always carry encrypted_content; the other values name hosted-tool outputs never made here.
  include: { ...nullable('array'), items: string },
  prompt_cache_options: nullable('object'),
  service_tier: { enum: ['auto', 'default', 'flex', 'scale', 'priority', null] },
  // It bounds calls of hosted tools, which are never run here (tools.ts).
  max_tool_calls: { ...nullable('integer'), minimum: 0 },
} as const;

/** The parameters of NO_EFFECT: the Responses table says "accepted, no effect" for each, on every family. */
export const NO_EFFECT_PARAMETERS: readonly string[] = Object.keys(NO_EFFECT);

const bodySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    model: string,
    input: { type: ['string', 'array'], items: item },
    instructions: nullable('string'),
    previous_response_id: nullable('string'),
    store: nullable('boolean'),
    stream: nullable('boolean'),
    // Bounded like the chat schema's counts: JSON.parse reads 1e400 as Infinity, which `integer` accepts and JSON.stringify sends as null.
    max_output_tokens: { ...nullable('integer'), minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
    temperature: { ...nullable('number'), minimum: 0, maximum: 2 },
    top_p: { ...nullable('number'), minimum: 0, maximum: 1 },
    tools: { type: 'array', items: tool },
    tool_choice: toolChoice,
    parallel_tool_calls: nullable('boolean'),
    text: { ...nullable('object'), additionalProperties: false, properties: { format, verbosity: { enum: ['low', 'medium', 'high', null] } } },
    reasoning: {
      ...nullable('object'),
      additionalProperties: false,
      properties: { effort: { enum: [...REASONING_EFFORTS, null] }, summary, generate_summary: summary },
    },
    metadata: { ...nullable('object'), maxProperties: 16, propertyNames: { maxLength: 64 }, additionalProperties: { type: 'string', maxLength: 512 } },
    safety_identifier: nullable('string'),
    user: nullable('string'),
    truncation: { enum: ['auto', 'disabled', null] },
    background: nullable('boolean'),
    top_logprobs: { ...nullable('integer'), minimum: 0, maximum: 20 },
    // Automatic caching for alpha (read.ts); no effect for beta and gamma, which cache on their own.
    prompt_cache_key: nullable('string'),
    prompt_cache_retention: { enum: ['in_memory', '24h', null] },
    ...NO_EFFECT,
    // Accepted by the schema only to be refused by name below.
    conversation: {},
    prompt: {},
    context_management: {},
    moderation: {},
  },
};

const validate = compileSchema(bodySchema);

/** Every top-level parameter the gateway knows (docs/formats/responses.md has a row for each). */
export const RESPONSES_PARAMETERS: readonly string[] = Object.keys(bodySchema.properties);

const present = (value: unknown): boolean => value !== undefined && value !== null;

/** What a well-formed request asks and the gateway cannot honour, for any family: the parameter and why. */
const REFUSED: ReadonlyArray<{ param: string; asks: (body: JsonObject) => boolean; why: string }> = [
  { param: 'background', asks: (b) => b['background'] === true, why: 'every response is answered in the foreground here' },
  {
    param: 'conversation',
    asks: (b) => present(b['conversation']),
    why: 'the gateway keeps no conversation objects; continue with previous_response_id, or send the items in input',
  },
  { param: 'prompt', asks: (b) => present(b['prompt']), why: 'the gateway has no stored prompt templates' },
  {
    param: 'context_management',
    asks: (b) => present(b['context_management']),
    why: 'the gateway compacts a conversation only when asked, by POST /v1/responses/compact',
  },
  { param: 'moderation', asks: (b) => present(b['moderation']), why: 'the gateway runs no moderation model' },
  {
    param: 'top_logprobs',
    asks: (b) => present(b['top_logprobs']) && b['top_logprobs'] !== 0,
    why: 'log probabilities are not available through /v1/responses',
  },
];

/** Refusals inside arrays: images by file id, logprobs asked through include. */
function refusedInside(body: JsonObject): RequestProblem | undefined {
  const include = Array.isArray(body['include']) ? (body['include'] as string[]) : [];
  const k = include.indexOf('message.output_text.logprobs');
  if (k >= 0) return { param: `include[${k}]`, message: `include[${k}]: log probabilities are not available through /v1/responses.` };
  for (const [i, entry] of (Array.isArray(body['input']) ? (body['input'] as JsonObject[]) : []).entries()) {
    const content = Array.isArray(entry['content']) ? (entry['content'] as JsonObject[]) : [];
    for (const [j, part] of content.entries()) {
      if (part['type'] !== 'input_image') continue;
      const where = `input[${i}].content[${j}]`;
      if (typeof part['image_url'] !== 'string') {
        const param = typeof part['file_id'] === 'string' ? `${where}.file_id` : `${where}.image_url`;
        return { param, message: `${where}: images are taken by image_url (a URL or a data URL); the gateway stores no files.` };
      }
    }
  }
  return undefined;
}

/** The first problem with a Responses request body: a malformed field, or what it asks that cannot be honoured. */
export function checkResponsesBody(body: JsonObject): RequestProblem | undefined {
  const problem = schemaProblem(validate, body);
  if (problem) return problem;
  const refused = REFUSED.find((entry) => entry.asks(body));
  if (refused) return { param: refused.param, message: `${refused.param} is not supported here: ${refused.why}.` };
  return refusedInside(body) ?? unknownMemberProblem(body);
}

import type { JsonObject, Operation } from '../../src/plugin-api.js';
import { schemaProblem, type RequestProblem } from '../../src/toolkit/ingress.js';
import { compileSchema } from '../../src/toolkit/json.js';

/**
 * JSON Schemas of the Messages request bodies: the fields the gateway reads are type-checked, so
 * that a malformed request is a 400 naming the field in Messages notation
 * (`messages[1].content[0].tool_use_id`), for every family — alpha's passthrough included.
 * Block types, tools and parameters the schema does not know pass: alpha judges them, the
 * reader refuses them for the other families. No defaults: a checked body is never changed.
 */

const string = { type: 'string' } as const;

/**
 * A count bounded by the largest exact integer, as in the chat schema
 * (src/reference/request-schemas.ts): JSON.parse reads `1e400` as Infinity, which Ajv's `integer`
 * accepts and JSON.stringify sends upstream as null.
 */
const count = (minimum: number): JsonObject => ({ type: 'integer', minimum, maximum: Number.MAX_SAFE_INTEGER });

/** A rule for objects whose `type` is `type` (blocks, sources, tool choices, thinking). */
const when = (type: string, then: JsonObject): JsonObject => ({ if: { required: ['type'], properties: { type: { const: type } } }, then });

const typed = (...rules: JsonObject[]): JsonObject => ({ type: 'object', required: ['type'], properties: { type: string }, allOf: rules });

const imageSource = typed(
  when('base64', { required: ['media_type', 'data'], properties: { media_type: string, data: string } }),
  when('url', { required: ['url'], properties: { url: string } }),
);

const textRule = when('text', { required: ['text'], properties: { text: string } });
const imageRule = when('image', { required: ['source'], properties: { source: imageSource } });

/** Blocks inside a tool result. */
const resultBlock = typed(textRule, imageRule);

const block = typed(
  textRule,
  imageRule,
  when('document', { required: ['source'], properties: { source: { type: 'object' } } }),
  when('tool_use', { required: ['id', 'name', 'input'], properties: { id: string, name: string, input: { type: 'object' } } }),
  when('tool_result', {
    required: ['tool_use_id'],
    properties: { tool_use_id: string, content: { type: ['string', 'array'], items: resultBlock }, is_error: { type: 'boolean' } },
  }),
  when('thinking', { required: ['thinking'], properties: { thinking: string, signature: string } }),
  when('redacted_thinking', { required: ['data'], properties: { data: string } }),
);

const message = {
  type: 'object',
  required: ['role', 'content'],
  properties: {
    role: { enum: ['user', 'assistant', 'system'] },
    // `items` applies to arrays only, so a bad block is named itself (an anyOf would blame the content).
    content: { type: ['string', 'array'], items: block },
  },
} as const;

/** A client tool (no type, or `custom`) needs an input schema; server tools are versioned types with a name. */
const tool = {
  type: 'object',
  required: ['name'],
  properties: {
    name: string,
    type: string,
    description: string,
    input_schema: { type: 'object' },
    strict: { type: 'boolean' },
    defer_loading: { type: 'boolean' },
  },
  if: { anyOf: [{ not: { required: ['type'] } }, { properties: { type: { const: 'custom' } } }] },
  then: { required: ['input_schema'] },
} as const;

const toolChoice = {
  ...typed(when('tool', { required: ['name'], properties: { name: string } })),
  properties: { type: { enum: ['auto', 'any', 'tool', 'none'] }, disable_parallel_tool_use: { type: 'boolean' } },
};

const properties = {
  model: string,
  max_tokens: count(1),
  messages: { type: 'array', minItems: 1, items: message },
  system: { type: ['string', 'array'], items: typed(textRule) },
  tools: { type: 'array', items: tool },
  tool_choice: toolChoice,
  stop_sequences: { type: 'array', items: string },
  // Bounded both ways already: ±Infinity is refused too.
  temperature: { type: 'number', minimum: 0, maximum: 1 },
  top_p: { type: 'number', minimum: 0, maximum: 1 },
  top_k: count(0),
  metadata: { type: 'object', properties: { user_id: { type: ['string', 'null'] } } },
  thinking: {
    ...typed(when('enabled', { required: ['budget_tokens'], properties: { budget_tokens: count(1) } })),
    properties: { type: string, display: string },
  },
  output_config: { type: 'object', properties: { effort: { type: ['string', 'null'] }, format: { type: ['object', 'null'] } } },
  stream: { type: 'boolean' },
  service_tier: string,
  context_management: { type: 'object', properties: { edits: { type: 'array', items: { type: 'object', required: ['type'], properties: { type: string } } } } },
};

const VALIDATORS = {
  generate: compileSchema({ type: 'object', required: ['max_tokens', 'messages'], properties }),
  count_tokens: compileSchema({ type: 'object', required: ['messages'], properties }),
};

/** The first problem with a Messages body (a create or a token count), or undefined. */
export function checkMessagesBody(operation: Operation | null, body: unknown): RequestProblem | undefined {
  return schemaProblem(operation === 'count_tokens' ? VALIDATORS.count_tokens : VALIDATORS.generate, body);
}

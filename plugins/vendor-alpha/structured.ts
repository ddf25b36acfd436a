import type { Call, JsonObject } from '../../src/plugin-api.js';
import { describedSchema } from '../../src/toolkit/json-schema.js';
import type { NeutralRequest, ToolSpec } from '../../src/toolkit/neutral.js';
import { alphaStrictSchema, type AlphaSchema } from './schema.js';

/**
 * Structured outputs for alpha (docs/vendor-formats.md#structured-outputs): a JSON-schema
 * answer goes as `output_config.format` with the schema in alpha's subset (schema.ts), and a
 * tool asked to be strict is declared with `strict: true` beside its rewritten `input_schema`.
 * A format alpha cannot compile (outside the subset, or over the limits on its own) and
 * `json_object`, which has no native mode, become the forced `json_response` tool instead.
 * Alpha compiles at most 20 strict tools, 24 optional and 16 union-typed properties per request:
 * above that the smallest strict tools keep `strict`, and each of the others is declared without
 * it and says so (`call.adjust`, `dropped:limit`), never all of them silently.
 */

export const JSON_TOOL = 'json_response';

/** Alpha's limits on what one request asks it to compile. */
export const STRICT_LIMITS = { tools: 20, optional: 24, unions: 16 } as const;

/** Records a parameter honoured only approximately: `Call.adjust`, or a refusal where no call announces it. */
export type Adjust = Call['adjust'];

export interface AlphaStructured {
  /** `output_config.format`, when the answer's schema goes natively; null otherwise. */
  format: JsonObject | null;
  /** The forced tool that carries the JSON answer instead, and why it is needed; null when none. */
  jsonTool: { tool: JsonObject; why: string } | null;
  /** The caller's tools as alpha declares them, in their order. */
  tools: JsonObject[];
}

interface Budget {
  tools: number;
  optional: number;
  unions: number;
}

const fits = (schema: AlphaSchema, used: Budget, tools: number): boolean =>
  used.tools + tools <= STRICT_LIMITS.tools && used.optional + schema.optional <= STRICT_LIMITS.optional && used.unions + schema.unions <= STRICT_LIMITS.unions;

const spend = (schema: AlphaSchema, used: Budget, tools: number): void => {
  used.tools += tools;
  used.optional += schema.optional;
  used.unions += schema.unions;
};

const DEFAULT_JSON_TOOL_DESCRIPTION = 'Reply with the JSON value that answers the request.';

function forcedTool(request: NeutralRequest, why: string): AlphaStructured['jsonTool'] {
  const format = request.responseFormat;
  const schema = format?.type === 'json_schema' ? { type: 'object', ...format.schema } : { type: 'object' };
  const description = (format?.type === 'json_schema' ? format.description?.text : undefined) ?? DEFAULT_JSON_TOOL_DESCRIPTION;
  return { tool: { name: JSON_TOOL, description, input_schema: schema }, why };
}

const plainTool = (tool: ToolSpec): JsonObject => ({
  name: tool.name,
  ...(tool.description !== undefined ? { description: tool.description } : {}),
  input_schema: tool.parameters ?? { type: 'object', properties: {} },
});

/** The JSON answer: natively as `output_config.format` (its schema's counts spent from `used`), else as the forced tool. */
function jsonAnswer(request: NeutralRequest, used: Budget, adjust: Adjust): Pick<AlphaStructured, 'format' | 'jsonTool'> {
  const asked = request.responseFormat;
  if (!asked) return { format: null, jsonTool: null };
  if (asked.type === 'json_object') return { format: null, jsonTool: forcedTool(request, 'json_object has no native mode on this model') };
  const written = alphaStrictSchema(describedSchema(asked.schema, asked.description?.text));
  if (!('outside' in written) && fits(written, used, 0)) {
    spend(written, used, 0);
    return { format: { type: 'json_schema', schema: written.schema }, jsonTool: null };
  }
  const outside = 'outside' in written ? written.outside : 'it has more optional or union-typed properties than this model compiles';
  // The forced tool's input is not held to the schema: a strict the caller asked for is not honoured.
  const strict = asked.strict && !asked.strict.implied ? asked.strict.param : null;
  if (strict) adjust(strict, 'dropped:schema', `${strict}: this model cannot enforce the schema strictly (${outside}); send strict: false.`);
  return { format: null, jsonTool: forcedTool(request, `the schema is outside what this model enforces natively: ${outside}`) };
}

/** The caller's tools as alpha declares them: the strict ones that fit `used`, smallest first, with `strict: true` and the rewritten schema. */
function declaredTools(request: NeutralRequest, used: Budget, adjust: Adjust): JsonObject[] {
  const tools = request.tools.map(plainTool);
  // An implied strict (a Responses tool without `strict`) is the reference API's default, not a request to alpha.
  const candidates = request.tools.flatMap((tool, i) => {
    if (!tool.strict || tool.strict.implied) return [];
    const param = tool.strict.param;
    const written = alphaStrictSchema(tool.parameters ?? { type: 'object', properties: {} });
    if (!('outside' in written)) return [{ i, param, written, size: JSON.stringify(written.schema).length }];
    adjust(param, 'dropped:schema', `${param}: this model cannot enforce the tool's schema strictly (${written.outside}); send strict: false.`);
    return [];
  });
  // The smallest first: the most tools keep `strict` within the limits.
  candidates.sort((a, b) => a.written.optional + a.written.unions - (b.written.optional + b.written.unions) || a.size - b.size || a.i - b.i);
  for (const { i, param, written } of candidates) {
    if (!fits(written, used, 1)) {
      adjust(
        param,
        'dropped:limit',
        `${param}: this model enforces at most ${STRICT_LIMITS.tools} strict tools, ${STRICT_LIMITS.optional} optional and ${STRICT_LIMITS.unions} union-typed properties per request; send fewer strict tools.`,
      );
      continue;
    }
    spend(written, used, 1);
    tools[i] = { ...tools[i], input_schema: written.schema, strict: true };
  }
  return tools;
}

export function alphaStructured(request: NeutralRequest, adjust: Adjust): AlphaStructured {
  // The answer's schema counts first: it is what the caller asked the reply to be.
  const used: Budget = { tools: 0, optional: 0, unions: 0 };
  const { format, jsonTool } = jsonAnswer(request, used, adjust);
  const tools = declaredTools(request, used, adjust);
  if (jsonTool) tools.push(jsonTool.tool);
  return { format, jsonTool, tools };
}

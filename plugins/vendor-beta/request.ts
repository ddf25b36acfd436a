import { GatewayError, invalidRequest, type NeutralRequest, type JsonObject, type Part, type ToolChoice, type Turn } from '../../src/plugin-api.js';
import { UNKNOWN_SIGNATURE, type ThoughtSignatures } from './thought-signatures.js';

/**
 * Reference chat request → beta `GenerateContentRequest` (docs/vendor-formats.md#beta-request).
 * Schemas go as JSON Schema (`parametersJsonSchema`, `responseJsonSchema`), so they need no
 * rewriting into the vendor's OpenAPI subset. Remote images must have been inlined before.
 */

/** The vendor's limit on `candidateCount`. */
const MAX_CANDIDATES = 8;

/** A tool result's text as the vendor wants it: an object, `{output: <parsed JSON or the text>}`. */
function functionResponse(content: string): JsonObject {
  try {
    return { output: JSON.parse(content) as unknown };
  } catch {
    return { output: content };
  }
}

function part(source: Exclude<Part, { type: 'reasoning' }>): JsonObject {
  switch (source.type) {
    case 'text':
      return { text: source.text };
    case 'image':
      if (source.source.kind !== 'data') throw new GatewayError(500, `${source.param}: remote image was not fetched before translation`);
      return { inlineData: { mimeType: source.source.mediaType, data: source.source.data } };
    case 'tool_call':
      return { functionCall: { name: source.name, args: source.args, id: source.id } };
    case 'tool_result':
      return { functionResponse: { name: source.name, id: source.id, response: functionResponse(source.content) } };
  }
}

/** Shown reasoning is not replayed to beta: its state travels on the function calls (thoughtSignature). */
const withoutReasoning = (parts: readonly Part[]): Array<Exclude<Part, { type: 'reasoning' }>> =>
  parts.filter((p): p is Exclude<Part, { type: 'reasoning' }> => p.type !== 'reasoning');

/** A model turn's function calls carry their signatures; the first call must have one. */
function modelTurn(turn: Turn, signatures: ThoughtSignatures): JsonObject {
  let first = true;
  const parts = withoutReasoning(turn.parts).map((source) => {
    const out = part(source);
    if (source.type === 'tool_call') {
      const signature = signatures.get(source.id) ?? (first ? UNKNOWN_SIGNATURE : undefined);
      if (signature) out['thoughtSignature'] = signature;
      first = false;
    }
    return out;
  });
  return { role: 'model', parts };
}

function toolConfig(choice: ToolChoice | null): JsonObject | undefined {
  if (choice === null) return undefined;
  if (typeof choice === 'object') return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
  const mode = { auto: 'AUTO', none: 'NONE', required: 'ANY' }[choice];
  return { functionCallingConfig: { mode } };
}

function generationConfig(request: NeutralRequest): JsonObject {
  const config: JsonObject = {};
  const set = (field: string, value: unknown): void => {
    if (value !== null && value !== undefined) config[field] = value;
  };
  set('maxOutputTokens', request.maxTokens);
  set('temperature', request.temperature);
  set('topP', request.topP);
  if (request.stop.length) config['stopSequences'] = request.stop;
  if (request.n !== 1) config['candidateCount'] = request.n;
  set('seed', request.seed);
  set('presencePenalty', request.presencePenalty);
  set('frequencyPenalty', request.frequencyPenalty);
  if (request.logprobs) {
    config['responseLogprobs'] = true;
    set('logprobs', request.topLogprobs);
  }
  const format = request.responseFormat;
  if (format) {
    config['responseMimeType'] = 'application/json';
    if (format.type === 'json_schema') config['responseJsonSchema'] = format.schema;
  }
  return config;
}

export function betaRequestBody(request: NeutralRequest, signatures: ThoughtSignatures): JsonObject {
  if (request.n > MAX_CANDIDATES) throw invalidRequest(`n must be at most ${MAX_CANDIDATES} for this model.`, 'n');
  const body: JsonObject = {
    contents: request.turns.map((turn) => (turn.role === 'assistant' ? modelTurn(turn, signatures) : { role: 'user', parts: withoutReasoning(turn.parts).map(part) })),
  };
  if (request.system.length) body['systemInstruction'] = { parts: request.system.map((text) => ({ text })) };
  if (request.tools.length) {
    body['tools'] = [
      {
        functionDeclarations: request.tools.map((tool) => ({
          name: tool.name,
          ...(tool.description !== undefined ? { description: tool.description } : {}),
          ...(tool.parameters ? { parametersJsonSchema: tool.parameters } : {}),
        })),
      },
    ];
  }
  const tools = toolConfig(request.toolChoice);
  if (tools) body['toolConfig'] = tools;
  const config = generationConfig(request);
  if (Object.keys(config).length) body['generationConfig'] = config;
  return body;
}

import { GatewayError, invalidRequest, type JsonObject, type ModelEntry } from '../../src/plugin-api.js';
import { describedSchema } from '../../src/toolkit/json-schema.js';
import { refuseToolNameClash, type NeutralRequest, type Part, type ToolChoice, type ToolSpec, type Turn } from '../../src/toolkit/neutral.js';
import { replaysNone, withReplayableTurns } from '../../src/toolkit/vendor.js';
import { betaSchema } from './schema.js';
import { callSignature, carriedSignature, thinkingConfig } from './thinking.js';
import { textTurnId, UNKNOWN_SIGNATURE } from './thought-signatures.js';

/**
 * Reference chat request → beta `GenerateContentRequest` (docs/vendor-formats.md#beta-request).
 * Schemas go as JSON Schema (`parametersJsonSchema`, `responseJsonSchema`), so they need no
 * rewriting into the vendor's OpenAPI subset. Remote images must have been inlined before.
 * Structured outputs (docs/vendor-formats.md#structured-outputs): the answer's schema and a
 * strict tool's are written in the keywords beta enforces (schema.ts); beta has no per-tool
 * `strict`, so a strict tool makes function calling `VALIDATED` (calls held to their schemas).
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

/** Shown reasoning is not replayed to beta: its state travels on the parts (thoughtSignature). */
const withoutReasoning = (parts: readonly Part[]): Array<Exclude<Part, { type: 'reasoning' }>> =>
  parts.filter((p): p is Exclude<Part, { type: 'reasoning' }> => p.type !== 'reasoning');

/**
 * A model turn with its thought signatures back in place (docs/reasoning.md#beta): the first
 * function call must carry one — its own, else the one the turn's reasoning carries, else the one
 * the gateway kept for its id (in the store), else the vendor's placeholder; later calls carry their own or the kept
 * one; a turn without calls gives the carried signature back on its last part, else the one the
 * gateway kept for its text (a stream's signature that came after the text).
 */
function modelTurn(turn: Turn, signatures: ReadonlyMap<string, string>): JsonObject {
  const sources = withoutReasoning(turn.parts);
  const first = sources.findIndex((source) => source.type === 'tool_call');
  const carried = carriedSignature(turn) ?? (first < 0 ? signatures.get(textTurnId(turnText(turn))) : undefined);
  const signatureAt = (source: (typeof sources)[number], i: number): string | undefined => {
    if (source.type !== 'tool_call') return first < 0 && i === sources.length - 1 ? carried : undefined;
    if (i !== first) return callSignature(source) ?? signatures.get(source.id);
    return callSignature(source) ?? carried ?? signatures.get(source.id) ?? UNKNOWN_SIGNATURE;
  };
  const parts = sources.map((source, i) => {
    const out = part(source);
    const signature = signatureAt(source, i);
    if (signature) out['thoughtSignature'] = signature;
    return out;
  });
  return { role: 'model', parts };
}

/** Strict asked in so many words (an implied strict is the Responses API's default, which beta does not take for a request). */
const isStrict = (tool: ToolSpec): boolean => tool.strict !== undefined && !tool.strict.implied;

/** The calling mode: with a strict tool, `auto` (and no choice) is `VALIDATED`, which holds the calls to their schemas; `ANY` does too. */
function toolConfig(choice: ToolChoice | null, strict: boolean): JsonObject | undefined {
  if (choice === null) return strict ? { functionCallingConfig: { mode: 'VALIDATED' } } : undefined;
  if (typeof choice === 'object') return { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.name] } };
  const mode = { auto: strict ? 'VALIDATED' : 'AUTO', none: 'NONE', required: 'ANY' }[choice];
  return { functionCallingConfig: { mode } };
}

function declaration(tool: ToolSpec): JsonObject {
  const out: JsonObject = { name: tool.name };
  if (tool.description !== undefined) out['description'] = tool.description;
  if (tool.parameters) out['parametersJsonSchema'] = isStrict(tool) ? betaSchema(tool.parameters) : tool.parameters;
  return out;
}

function generationConfig(request: NeutralRequest, model: ModelEntry): JsonObject {
  const config: JsonObject = {};
  const set = (field: string, value: unknown): void => {
    if (value !== null && value !== undefined) config[field] = value;
  };
  set('maxOutputTokens', request.maxTokens);
  set('temperature', request.temperature);
  set('topP', request.topP);
  set('topK', request.topK);
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
    // Beta has no field for the format's name or description: the description goes into the schema.
    if (format.type === 'json_schema') config['responseJsonSchema'] = betaSchema(describedSchema(format.schema, format.description?.text));
  }
  set('thinkingConfig', thinkingConfig(request, model));
  return config;
}

/** The text of a model turn, as a stream wrote it (its text parts, joined). */
const turnText = (turn: Turn): string => turn.parts.map((part) => (part.type === 'text' ? part.text : '')).join('');

/**
 * The ids of the signatures the gateway may have kept for a request's history, to look up before
 * translating it: its tool calls', and, for a model turn with text, no call and no signature of
 * its own, its text's (`textTurnId`).
 */
export function historySignatureIds(asked: NeutralRequest): string[] {
  const ids: string[] = [];
  for (const turn of withReplayableTurns(asked, replaysNone).turns) {
    if (turn.role !== 'assistant') continue;
    const calls = turn.parts.flatMap((part) => (part.type === 'tool_call' ? [part.id] : []));
    const text = calls.length || carriedSignature(turn) ? '' : turnText(turn);
    ids.push(...calls, ...(text ? [textTurnId(text)] : []));
  }
  return ids;
}

export function betaRequestBody(asked: NeutralRequest, model: ModelEntry, signatures: ReadonlyMap<string, string>): JsonObject {
  const request = withReplayableTurns(asked, replaysNone);
  if (request.n > MAX_CANDIDATES) throw invalidRequest(`n must be at most ${MAX_CANDIDATES} for this model.`, 'n');
  refuseToolNameClash(request);
  const body: JsonObject = {
    contents: request.turns.map((turn) =>
      turn.role === 'assistant' ? modelTurn(turn, signatures) : { role: 'user', parts: withoutReasoning(turn.parts).map(part) },
    ),
  };
  if (request.system.length) body['systemInstruction'] = { parts: request.system.map((text) => ({ text })) };
  if (request.tools.length) {
    body['tools'] = [{ functionDeclarations: request.tools.map(declaration) }];
  }
  const tools = toolConfig(request.toolChoice, request.tools.some(isStrict));
  if (tools) body['toolConfig'] = tools;
  const config = generationConfig(request, model);
  if (Object.keys(config).length) body['generationConfig'] = config;
  return body;
}

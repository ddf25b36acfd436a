import { invalidRequest, type Call, type GatewayError, type JsonObject } from '../../src/plugin-api.js';
import { imageSource, objectSchema, TurnSequence } from '../../src/toolkit/ingress.js';
import { isObject } from '../../src/toolkit/json.js';
import {
  stateOpener,
  verifiedState,
  type OpenState,
  type NeutralRequest,
  type Part,
  type ReasoningEffort,
  type ReasoningRequest,
  type ReasoningState,
  type ResponseFormat,
  type StrictAsk,
  type ToolChoice,
  type ToolSpec,
} from '../../src/toolkit/neutral.js';
import { geminiBody } from './body.js';
import { HOSTED_TOOLS, unknownMemberOf } from './members.js';
import { jsonSchemaOf } from './openapi-schema.js';
import { SKIP_SIGNATURE } from './wire.js';

/**
 * A Gemini request (checked by schema.ts) read into the neutral request, for every family: beta's
 * request is written anew from it like any format's. `contents` become turns (`model` is the
 * assistant, a `function` role the user's), thought parts and thought signatures the reasoning of
 * a model turn, `systemInstruction` the system text; `generationConfig` maps member by member.
 * What the neutral request cannot carry is a 400 naming it in Gemini notation — never dropped:
 * docs/formats/gemini.md.
 */

/** The sampling fields' names in this format, for a vendor's refusals and adjustments. */
const GEMINI_PARAMS: NonNullable<NeutralRequest['params']> = {
  temperature: 'generationConfig.temperature',
  topP: 'generationConfig.topP',
  topK: 'generationConfig.topK',
  stop: 'generationConfig.stopSequences',
  seed: 'generationConfig.seed',
  presencePenalty: 'generationConfig.presencePenalty',
  frequencyPenalty: 'generationConfig.frequencyPenalty',
};

const numberOrNull = (value: unknown): number | null => (typeof value === 'number' ? value : null);

/** The conversation and the calls of the latest model turn, which the next turn's function responses answer. */
interface Reading {
  sequence: TurnSequence;
  /** The calls of the latest model content, by position, each answered at most once. */
  calls: Array<{ id: string; name: string; answered: boolean }>;
  /** Opens the reasoning states the caller hands back. */
  open: OpenState;
}

const refuse = (param: string, what: string): GatewayError => invalidRequest(`${param}: ${what}`, param);

/**
 * A `thoughtSignature`: the gateway's seal gives its state (none when it does not open: announced),
 * Gemini CLI's placeholder none, anything else is beta's own (a conversation begun with Google's
 * own service: it names no deployment).
 */
function signatureState(signature: unknown, open: OpenState): ReasoningState | null {
  if (typeof signature !== 'string' || signature === '' || signature === SKIP_SIGNATURE) return null;
  const opened = open(signature, 'thoughtSignature');
  return opened === null ? { family: 'beta', kind: 'thought_signature', data: signature } : verifiedState(opened);
}

function inlineImage(data: JsonObject, where: string): Part {
  const mimeType = String(data['mimeType']).toLowerCase();
  if (!mimeType.startsWith('image/')) throw refuse(`${where}.inlineData`, `inline data of ${mimeType} cannot be sent to the model (only images are read).`);
  return {
    type: 'image',
    source: imageSource(`data:${mimeType};base64,${String(data['data'])}`, `${where}.inlineData`, `${where}.inlineData.data`),
    param: where,
  };
}

/** A function response's text: a lone `output` (or `error`) string as it is, any other response as its JSON. */
function responseText(response: JsonObject): { content: string; isError: boolean } {
  const keys = Object.keys(response);
  const only = keys.length === 1 ? keys[0] : undefined;
  if ((only === 'output' || only === 'error') && typeof response[only] === 'string') return { content: response[only], isError: only === 'error' };
  return { content: JSON.stringify(response), isError: false };
}

/** The call a function response answers: the one of its `id`, else the first unanswered call of its name in the model turn before. */
function answeredCall(reading: Reading, answer: JsonObject, where: string): { id: string; name: string } {
  const id = typeof answer['id'] === 'string' ? answer['id'] : undefined;
  const name = answer['name'] as string;
  const call = reading.calls.find((made) => !made.answered && (id !== undefined ? made.id === id : made.name === name));
  if (!call)
    throw refuse(
      `${where}.functionResponse`,
      `answers no functionCall ${id !== undefined ? `with the id '${id}'` : `of '${name}'`} of the model turn right before it.`,
    );
  if (call.name !== name) throw refuse(`${where}.functionResponse.name`, `must be '${call.name}', the name of the call it answers.`);
  call.answered = true;
  return call;
}

function userPart(reading: Reading, part: JsonObject, where: string): Part | null {
  if (typeof part['text'] === 'string') return part['text'] === '' ? null : { type: 'text', text: part['text'] };
  if (isObject(part['inlineData'])) return inlineImage(part['inlineData'], where);
  if (isObject(part['functionResponse'])) {
    const answer = part['functionResponse'];
    const call = answeredCall(reading, answer, where);
    const { content, isError } = responseText(answer['response'] as JsonObject);
    return { type: 'tool_result', id: call.id, name: call.name, content, ...(isError ? { isError: true } : {}) };
  }
  if (isObject(part['fileData']))
    throw refuse(`${where}.fileData`, "file references (the vendor's File API) cannot be read by the gateway; send the bytes as inlineData.");
  if (isObject(part['functionCall'])) throw refuse(`${where}.functionCall`, 'a function call must stand in a model turn.');
  return null;
}

/**
 * A model turn: its reasoning runs first — each thought part one run, with the signature it
 * carries — then its text and calls. The signature Gemini puts on the first call or the last part
 * (the lead) belongs to the first run without one, or to a run of its own; a call's own beta
 * signature stays on the call too.
 */
function readModelTurn(reading: Reading, parts: JsonObject[], where: string, i: number): Part[] {
  const runs: Array<Extract<Part, { type: 'reasoning' }>> = [];
  const out: Part[] = [];
  let lead: ReasoningState | null = null;
  reading.calls = [];
  for (const [j, part] of parts.entries()) {
    const at = `${where}[${j}]`;
    const signed = signatureState(part['thoughtSignature'], reading.open);
    if (typeof part['text'] === 'string' && part['thought'] === true) {
      runs.push({ type: 'reasoning', text: part['text'], state: signed });
      continue;
    }
    lead ??= signed;
    if (typeof part['text'] === 'string') {
      if (part['text'] !== '') out.push({ type: 'text', text: part['text'] });
    } else if (isObject(part['functionCall'])) {
      const call = part['functionCall'];
      const id = typeof call['id'] === 'string' && call['id'] !== '' ? call['id'] : `call_${i}_${j}`;
      const name = call['name'] as string;
      reading.calls.push({ id, name, answered: false });
      const args = isObject(call['args']) ? call['args'] : {};
      reading.sequence.call(id, name, args);
      out.push({ type: 'tool_call', id, name, args, ...(signed?.family === 'beta' ? { state: signed } : {}) });
    } else if (isObject(part['inlineData']) || isObject(part['fileData'])) {
      throw refuse(at, 'a model turn cannot carry data parts.');
    } else if (isObject(part['functionResponse'])) {
      throw refuse(`${at}.functionResponse`, 'a function response must stand in a user turn.');
    }
  }
  if (lead) {
    const unsigned = runs.find((run) => run.state === null);
    if (unsigned) unsigned.state = lead;
    else runs.unshift({ type: 'reasoning', text: '', state: lead });
  }
  return [...runs, ...out];
}

function readContents(reading: Reading, contents: JsonObject[]): void {
  contents.forEach((content, i) => {
    const where = `contents[${i}].parts`;
    const parts = content['parts'] as JsonObject[];
    if (content['role'] === 'model') {
      reading.sequence.add('assistant', readModelTurn(reading, parts, where, i));
      return;
    }
    reading.sequence.add(
      'user',
      parts.flatMap((part, j) => userPart(reading, part, `${where}[${j}]`) ?? []),
    );
  });
}

function readSystem(reading: Reading, instruction: unknown): void {
  if (!isObject(instruction)) return;
  (instruction['parts'] as JsonObject[] | undefined)?.forEach((part, j) => {
    if (typeof part['text'] !== 'string') throw refuse(`systemInstruction.parts[${j}]`, 'only text parts can stand in the system instruction.');
    reading.sequence.addSystem(part['text']);
  });
}

/**
 * The function declarations as offered to the model; a hosted tool (search, URL context, code
 * execution, …), which the gateway cannot run, is left out and announced (`tools[1]=omitted:googleSearch`).
 */
function readTools(raw: unknown, call: Call): ToolSpec[] {
  if (!Array.isArray(raw)) return [];
  return (raw as JsonObject[]).flatMap((tool, i) => {
    for (const name of Object.keys(tool)) {
      if (!HOSTED_TOOLS.has(name) || tool[name] === null) continue;
      call.adjust(
        `tools[${i}]`,
        `omitted:${name}`,
        `tools[${i}]: ${name} is run by Google's own service, which the gateway cannot run for any model; it could only be left out.`,
      );
    }
    const declarations = Array.isArray(tool['functionDeclarations']) ? (tool['functionDeclarations'] as JsonObject[]) : [];
    return declarations.map((declaration, j): ToolSpec => {
      const where = `tools[${i}].functionDeclarations[${j}]`;
      const json = declaration['parametersJsonSchema'];
      const openApi = declaration['parameters'];
      if (json !== undefined && openApi !== undefined) throw refuse(`${where}.parameters`, 'give parameters or parametersJsonSchema, not both.');
      const schema =
        json !== undefined
          ? objectSchema(json, `${where}.parametersJsonSchema`)
          : objectSchema(isObject(openApi) ? jsonSchemaOf(openApi) : undefined, `${where}.parameters`);
      const spec: ToolSpec = { name: declaration['name'] as string, parameters: schema };
      if (typeof declaration['description'] === 'string') spec.description = declaration['description'];
      return spec;
    });
  });
}

const CALLING = 'toolConfig.functionCallingConfig';

/**
 * `functionCallingConfig` → the tool choice: `ANY` must call (one name: that tool; several: the
 * tools offered are those), `NONE` must not, `VALIDATED` may, its calls held to their schemas
 * (each tool strict). `tools` may be narrowed here (ANY with several names).
 */
function readToolChoice(config: unknown, tools: ToolSpec[]): { choice: ToolChoice | null; tools: ToolSpec[] } {
  if (!isObject(config)) return { choice: null, tools };
  const mode = config['mode'] ?? 'MODE_UNSPECIFIED';
  const names = Array.isArray(config['allowedFunctionNames']) ? (config['allowedFunctionNames'] as string[]) : null;
  if (names !== null && mode !== 'ANY') throw refuse(`${CALLING}.allowedFunctionNames`, 'goes with mode ANY.');
  switch (mode) {
    case 'NONE':
      return { choice: 'none', tools };
    case 'VALIDATED': {
      const strict: StrictAsk = { param: `${CALLING}.mode` };
      return { choice: 'auto', tools: tools.map((tool) => ({ ...tool, strict })) };
    }
    case 'ANY': {
      if (!tools.length) throw refuse(`${CALLING}.mode`, 'is ANY, but no function is declared.');
      if (names === null || names.length === 0) return { choice: 'required', tools };
      const unknown = names.find((name) => !tools.some((tool) => tool.name === name));
      if (unknown !== undefined) throw refuse(`${CALLING}.allowedFunctionNames`, `names '${unknown}', which no functionDeclarations entry declares.`);
      if (names.length === 1) return { choice: { name: names[0] as string }, tools };
      return { choice: 'required', tools: tools.filter((tool) => names.includes(tool.name)) };
    }
    default:
      return { choice: mode === 'AUTO' ? 'auto' : null, tools };
  }
}

const THINKING = 'generationConfig.thinkingConfig';

/**
 * `thinkingConfig` → what the caller asks of the model's reasoning (docs/reasoning.md#the-gemini-format):
 * a level is an effort, a budget a budget (0: off; -1, dynamic: the model decides, at effort
 * `medium`, asked only of a model that reasons); without `includeThoughts` the thinking text is
 * not returned. `includeThoughts` alone asks for the model's default.
 */
function readReasoning(config: JsonObject): ReasoningRequest | null {
  const thinking = config['thinkingConfig'];
  if (!isObject(thinking)) return null;
  const level = thinking['thinkingLevel'];
  const budget = thinking['thinkingBudget'];
  const leveled = level !== undefined && level !== 'THINKING_LEVEL_UNSPECIFIED';
  if (leveled && budget !== undefined) throw refuse(`${THINKING}.thinkingBudget`, 'give thinkingBudget or thinkingLevel, not both.');
  let asked: ReasoningRequest | null = null;
  if (leveled) asked = { kind: 'effort', effort: String(level).toLowerCase() as ReasoningEffort, param: `${THINKING}.thinkingLevel` };
  else if (budget === 0) asked = { kind: 'off', param: `${THINKING}.thinkingBudget` };
  else if (budget === -1) asked = { kind: 'effort', effort: 'medium', param: `${THINKING}.thinkingBudget`, ifReasoning: true };
  else if (typeof budget === 'number') asked = { kind: 'budget', tokens: budget, param: `${THINKING}.thinkingBudget` };
  return asked && thinking['includeThoughts'] !== true && asked.kind !== 'off' ? { ...asked, omitted: true } : asked;
}

/** `responseMimeType` and a schema → JSON output: a schema the vendor enforces (strict where it allows), or any JSON object. */
function readFormat(config: JsonObject): ResponseFormat | null {
  const mime = config['responseMimeType'];
  const json = config['responseJsonSchema'];
  const openApi = config['responseSchema'];
  if (json !== undefined && openApi !== undefined) throw refuse('generationConfig.responseSchema', 'give responseSchema or responseJsonSchema, not both.');
  const schemaParam = json !== undefined ? 'generationConfig.responseJsonSchema' : 'generationConfig.responseSchema';
  if (mime === undefined || mime === 'text/plain') {
    if (json !== undefined || openApi !== undefined) throw refuse(schemaParam, 'goes with responseMimeType application/json.');
    return null;
  }
  if (mime !== 'application/json')
    throw refuse('generationConfig.responseMimeType', `must be text/plain or application/json for this gateway, not ${String(mime)}.`);
  const param = 'generationConfig.responseMimeType';
  if (json === undefined && openApi === undefined) return { type: 'json_object', param };
  const schema = objectSchema(json !== undefined ? json : jsonSchemaOf(openApi as JsonObject), schemaParam);
  return { type: 'json_schema', name: 'response', schema, param, strict: { param: schemaParam, implied: true } };
}

function refuseBeyond(config: JsonObject): void {
  const candidates = config['candidateCount'];
  if (typeof candidates === 'number' && candidates > 1) throw refuse('generationConfig.candidateCount', 'the gateway answers one candidate a request.');
  const modalities = config['responseModalities'];
  if (Array.isArray(modalities) && modalities.some((modality) => modality !== 'TEXT'))
    throw refuse('generationConfig.responseModalities', 'the gateway answers text only (TEXT).');
}

/** Reads the body of a Gemini call (a generation or a token count) into the neutral request. */
export function readGeminiRequest(call: Call): NeutralRequest {
  const body = geminiBody(call);
  const member = unknownMemberOf(body);
  if (member !== undefined) throw refuse(member, 'the gateway does not read this member, so it could not reach the model.');
  if (body['cachedContent'] !== undefined)
    throw refuse('cachedContent', "cached contents are kept by Google's own service, which the gateway does not use; send the contents.");
  if (body['safetySettings'] !== undefined)
    call.adjust('safetySettings', 'ignored', "safetySettings: the gateway sends no safety settings to any model; the vendor's defaults apply.");
  const reading: Reading = { sequence: new TurnSequence(), calls: [], open: stateOpener(call) };
  readSystem(reading, body['systemInstruction']);
  readContents(reading, (body['contents'] as JsonObject[] | undefined) ?? []);
  const settled = reading.sequence.settle({ param: 'contents', result: 'functionResponse', call: 'model turn' });
  const config = isObject(body['generationConfig']) ? body['generationConfig'] : {};
  refuseBeyond(config);
  const { choice, tools } = readToolChoice(
    isObject(body['toolConfig']) ? body['toolConfig']['functionCallingConfig'] : undefined,
    readTools(body['tools'], call),
  );
  return {
    system: settled.system,
    turns: settled.turns,
    maxTokens: numberOrNull(config['maxOutputTokens']),
    temperature: numberOrNull(config['temperature']),
    topP: numberOrNull(config['topP']),
    topK: numberOrNull(config['topK']),
    stop: Array.isArray(config['stopSequences']) ? (config['stopSequences'] as string[]) : [],
    n: 1,
    seed: numberOrNull(config['seed']),
    user: null,
    presencePenalty: numberOrNull(config['presencePenalty']),
    frequencyPenalty: numberOrNull(config['frequencyPenalty']),
    logprobs: false,
    topLogprobs: null,
    tools,
    toolChoice: choice,
    parallelToolCalls: true,
    responseFormat: readFormat(config),
    reasoning: readReasoning(config),
    params: GEMINI_PARAMS,
  };
}

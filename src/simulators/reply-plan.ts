import { createHash } from 'node:crypto';

/**
 * The vendor-neutral brain of the simulators: from what a request asks, decide the reply
 * (text pieces, tool calls, finish reason, token counts). Each vendor simulator only parses
 * its own request format into a SimRequest and renders the plan in its own wire format, so
 * all three families answer the same question the same way — which is what lets tests
 * compare families byte for byte after translation.
 *
 * Counting rules (documented so tests can compute expected usage by hand):
 * - prompt tokens = whitespace-separated words in all text of the request (system included);
 * - completion tokens = text pieces emitted + 10 per tool call + thinking pieces;
 * - a request that has the model reason gets 6 thinking pieces per choice (`THINKING`), which
 *   count toward its output limit like text (the vendors count thinking inside it).
 *
 * Directives in the last user text steer a reply: `[[sim:tokens=N]]` (N text pieces),
 * `[[sim:parallel=N]]` (N tool calls), `[[sim:status=503]]`, `[[sim:delay_ms=N]]`,
 * `[[sim:chunk_delay_ms=N]]`, `[[sim:reset_after=N]]` (cut the stream after N frames),
 * `[[sim:error_after=N]]` (the vendor's in-stream error event after N frames), `[[sim:hang=1]]`
 * (never answer), `[[sim:redacted=1]]` (alpha: the thinking comes redacted), `[[sim:unicode=1]]`
 * (words of 2-, 3- and 4-byte UTF-8 characters, for tests of bodies split inside a character),
 * `[[sim:refusal=1]]` (the model refuses: alpha's `stop_reason: "refusal"`, beta's blocked prompt).
 */

export type SimToolChoice = 'auto' | 'none' | 'required' | { name: string };

export interface SimTool {
  name: string;
  parameters: unknown;
}

export interface SimRequest {
  /** Every piece of text in the request, system instructions included. */
  texts: string[];
  /** The text of the last user turn ('' if the last turn is not a user's). */
  lastUserText: string;
  /** Contents of tool results in the last turn, if the last turn answers tool calls. */
  toolResults: string[];
  tools: SimTool[];
  toolChoice: SimToolChoice;
  /** JSON output wanted: null, or the schema ({} for any object). */
  jsonSchema: Record<string, unknown> | null;
  maxTokens: number | null;
  choices: number;
  /** The request has the model reason (absent: it does not). */
  reasoning?: boolean;
}

export interface SimToolCall {
  id: string;
  name: string;
  /** The arguments as a JSON string. */
  arguments: string;
}

export interface SimChoice {
  /** Thinking text pieces, before the answer (empty when the model does not reason). */
  thinking: string[];
  pieces: string[];
  toolCalls: SimToolCall[];
  finish: 'stop' | 'length' | 'tool_calls';
}

export interface ReplyPlan {
  choices: SimChoice[];
  promptTokens: number;
  /** Everything generated, thinking included. */
  completionTokens: number;
  /** The thinking pieces among completionTokens. */
  reasoningTokens: number;
}

export interface Directives {
  tokens?: number;
  parallel?: number;
  status?: number;
  delay_ms?: number;
  chunk_delay_ms?: number;
  reset_after?: number;
  error_after?: number;
  hang?: number;
  /** The vendor hides the thinking (alpha: a redacted_thinking block). */
  redacted?: number;
  unicode?: number;
  /** The model refuses to answer (alpha: `stop_reason: "refusal"`; beta: the prompt blocked). */
  refusal?: number;
}

const DIRECTIVE = /\[\[sim:([a-z_]+)=(\d+)\]\]/g;
const DEFAULT_PIECES = 12;
const TOOL_CALL_TOKENS = 10;
const WORDS = ['Hello', 'from', 'the', 'simulated', 'upstream;', 'this', 'reply', 'is', 'deterministic', 'and', 'counted', 'word', 'by', 'word.'];
/** What a simulated model thinks, piece by piece, when a request has it reason. */
export const THINKING = ['Considering', ' the', ' request', ' step', ' by', ' step.'];
export const UNICODE_WORDS = ['Grüße', 'aus', 'Zürich;', '東京は', '晴れ', '🎉🚀', 'ñandú', 'Ωμέγα', 'naïve', 'café', 'ok', '✓.'];

export function readDirectives(text: string): Directives {
  const found: Record<string, number> = {};
  for (const match of text.matchAll(DIRECTIVE)) found[match[1] as string] = Number(match[2]);
  return found;
}

export const countWords = (text: string): number => text.split(/\s+/).filter(Boolean).length;

/**
 * A value of the shape a JSON Schema describes (enough for tool arguments and JSON output): the
 * first `enum` value or the `const`, the first variant of a union, a local `$ref` followed
 * (`#/$defs/…`, `#/definitions/…`) within `root`, every property of an object.
 */
export function sampleFromSchema(schema: unknown, root: unknown = schema): unknown {
  const node = (schema ?? {}) as Record<string, unknown>;
  if (typeof node['$ref'] === 'string') {
    const [, where, name] = /^#\/(\$defs|definitions)\/(.+)$/.exec(node['$ref']) ?? [];
    const defs = where ? ((root as Record<string, unknown>)[where] as Record<string, unknown> | undefined) : undefined;
    return name && defs?.[name] !== undefined ? sampleFromSchema(defs[name], root) : {};
  }
  if (Array.isArray(node['enum']) && node['enum'].length) return node['enum'][0];
  if (node['const'] !== undefined) return node['const'];
  const variants = node['anyOf'] ?? node['oneOf'];
  if (Array.isArray(variants) && variants.length) return sampleFromSchema(variants[0], root);
  const type: unknown = Array.isArray(node['type']) ? node['type'][0] : node['type'];
  switch (type) {
    case 'string':
      return 'sample';
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return [sampleFromSchema(node['items'], root)];
    case 'null':
      return null;
    default: {
      const properties = (node['properties'] ?? {}) as Record<string, unknown>;
      return Object.fromEntries(Object.entries(properties).map(([name, sub]) => [name, sampleFromSchema(sub, root)]));
    }
  }
}

/** Splits text into pieces of at most 8 characters (for JSON output, which has no words to count). */
function chop(text: string): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += 8) pieces.push(text.slice(i, i + 8));
  return pieces;
}

function textPieces(request: SimRequest, directives: Directives): string[] {
  if (request.toolResults.length) {
    return `Tool results: ${request.toolResults.join('; ')}`.split(' ').map((w, i) => (i ? ` ${w}` : w));
  }
  if (request.jsonSchema) return chop(JSON.stringify(sampleFromSchema({ type: 'object', ...request.jsonSchema })));
  const count = directives.tokens ?? DEFAULT_PIECES;
  const words = directives.unicode ? UNICODE_WORDS : WORDS;
  return Array.from({ length: count }, (_, i) => (i ? ' ' : '') + (words[i % words.length] as string));
}

function wantsToolCall(request: SimRequest): SimTool | undefined {
  if (!request.tools.length || request.toolResults.length || request.toolChoice === 'none') return undefined;
  if (typeof request.toolChoice === 'object') {
    const name = request.toolChoice.name;
    return request.tools.find((tool) => tool.name === name);
  }
  return request.tools[0];
}

/** A stable id per (request text, call index), so replays of a request get the same ids. */
const callId = (seed: string, index: number): string => `call_${createHash('sha256').update(`${seed}#${index}`).digest('hex').slice(0, 24)}`;

export function planReply(request: SimRequest): ReplyPlan {
  const directives = readDirectives(request.lastUserText);
  const promptTokens = request.texts.reduce((sum, text) => sum + countWords(text), 0);
  const tool = wantsToolCall(request);
  const thinking = request.reasoning ? [...THINKING] : [];
  const choices: SimChoice[] = [];
  for (let c = 0; c < Math.max(1, request.choices); c++) {
    if (tool) {
      const calls = Array.from({ length: Math.max(1, directives.parallel ?? 1) }, (_, i) => ({
        id: callId(request.lastUserText, i),
        name: tool.name,
        arguments: JSON.stringify(sampleFromSchema(tool.parameters)),
      }));
      choices.push({ thinking, pieces: [], toolCalls: calls, finish: 'tool_calls' });
      continue;
    }
    let pieces = textPieces(request, directives);
    let finish: SimChoice['finish'] = 'stop';
    const room = request.maxTokens === null ? Infinity : Math.max(0, request.maxTokens - thinking.length);
    if (pieces.length > room) {
      pieces = pieces.slice(0, room);
      finish = 'length';
    }
    choices.push({ thinking, pieces, toolCalls: [], finish });
  }
  const reasoningTokens = thinking.length * choices.length;
  const completionTokens = choices.reduce((sum, ch) => sum + ch.pieces.length + ch.toolCalls.length * TOOL_CALL_TOKENS, reasoningTokens);
  return { choices, promptTokens, completionTokens, reasoningTokens };
}

/** A deterministic unit-length-ish vector for an input, `dimensions` long. */
export function embedText(text: string, dimensions: number): number[] {
  const out: number[] = [];
  let block = createHash('sha256').update(text).digest();
  while (out.length < dimensions) {
    for (let i = 0; i + 1 < block.length && out.length < dimensions; i += 2) {
      // Multiples of 1/1024 are exact in float32, so base64 round trips are lossless.
      out.push(Math.round(((block.readUInt16BE(i) - 32768) / 32768) * 1024) / 1024);
    }
    block = createHash('sha256').update(block).digest();
  }
  return out;
}

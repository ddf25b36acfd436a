import type { JsonObject } from '../../src/plugin-api.js';
import { mintId } from '../../src/toolkit/ids.js';
import type { FinishReason, ReasoningState, Reply, ReplyChoice, ReplyToolCall, ReplyUsage } from '../../src/toolkit/neutral.js';
import { tokenCount } from '../../src/toolkit/vendor.js';
import { referenceLogprobs } from './logprobs.js';

/** Beta `GenerateContentResponse` → the neutral reply (docs/vendor-formats.md#beta-response). */

const CONTENT_FILTER = new Set(['SAFETY', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'LANGUAGE', 'RECITATION']);

/** A finish reason → ours. A function call ends with STOP, which is `tool_calls` for the caller. */
export function betaFinish(reason: unknown, calledTools: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (typeof reason === 'string' && CONTENT_FILTER.has(reason)) return 'content_filter';
  return calledTools ? 'tool_calls' : 'stop';
}

/** prompt = prompt (+ tool-use prompt); completion = candidates + thoughts; total is their sum. */
export function betaUsage(raw: unknown): ReplyUsage {
  const usage = (raw ?? {}) as JsonObject;
  const thoughts = tokenCount(usage['thoughtsTokenCount']);
  const out: ReplyUsage = {
    promptTokens: tokenCount(usage['promptTokenCount']) + tokenCount(usage['toolUsePromptTokenCount']),
    completionTokens: tokenCount(usage['candidatesTokenCount']) + thoughts,
  };
  const cached = tokenCount(usage['cachedContentTokenCount']);
  if (cached) out.cachedTokens = cached;
  if (thoughts) out.reasoningTokens = thoughts;
  return out;
}

export interface BetaPart {
  text?: string;
  /** Thought text (`"thought": true`): reasoning the model shows. */
  thought?: string;
  call?: ReplyToolCall;
  /** The part's `thoughtSignature`, to be handed back on the same part next turn. */
  signature?: ReasoningState;
}

/** Where a response's thought signatures go, by the tool-call id handed to the caller. */
export type RememberSignature = (callId: string, signature: string) => void;

/**
 * One response part: visible text, thought text, a function call (id minted when the vendor gave
 * none; its signature also kept by id, in the store, for callers whose format cannot carry it),
 * and the part's thought signature.
 */
export function readPart(raw: JsonObject, remember: RememberSignature): BetaPart {
  const signed = typeof raw['thoughtSignature'] === 'string' && raw['thoughtSignature'] !== '' ? raw['thoughtSignature'] : null;
  const out: BetaPart = signed ? { signature: { family: 'beta', kind: 'thought_signature', data: signed } } : {};
  const call = raw['functionCall'] as JsonObject | undefined;
  if (call) {
    const id = typeof call['id'] === 'string' && call['id'] !== '' ? call['id'] : mintId('call_');
    if (signed) remember(id, signed);
    out.call = { id, name: String(call['name']), arguments: JSON.stringify(call['args'] ?? {}) };
  } else if (typeof raw['text'] === 'string') {
    if (raw['thought'] === true) out.thought = raw['text'];
    else out.text = raw['text'];
  }
  return out;
}

export const partsOf = (candidate: JsonObject): JsonObject[] => {
  const parts = (candidate['content'] as JsonObject | undefined)?.['parts'];
  return Array.isArray(parts) ? (parts as JsonObject[]) : [];
};

/**
 * One candidate. Its thoughts are one reasoning run whose state is the signature the vendor
 * validates on replay: the first function call's, else the last part's. With
 * `parallel_tool_calls: false` only the first call is kept (beta cannot be asked for fewer).
 */
function choice(candidate: JsonObject, remember: RememberSignature, oneCall: boolean): ReplyChoice {
  const texts: string[] = [];
  const thoughts: string[] = [];
  const toolCalls: ReplyToolCall[] = [];
  let signature: ReasoningState | null = null;
  for (const raw of partsOf(candidate)) {
    const read = readPart(raw, remember);
    if (read.text !== undefined) texts.push(read.text);
    if (read.thought !== undefined) thoughts.push(read.thought);
    if (read.signature && !(signature && toolCalls.length)) signature = read.signature;
    if (read.call && !(oneCall && toolCalls.length)) toolCalls.push(read.call);
  }
  const out: ReplyChoice = {
    content: texts.length ? texts.join('') : toolCalls.length ? null : '',
    refusal: null,
    toolCalls,
    finish: betaFinish(candidate['finishReason'], toolCalls.length > 0),
  };
  if (thoughts.length || signature) out.reasoning = [{ text: thoughts.join(''), state: signature }];
  const logprobs = referenceLogprobs(candidate['logprobsResult']);
  if (logprobs) out.logprobs = logprobs;
  return out;
}

export function betaReply(body: JsonObject, remember: RememberSignature, oneCall: boolean): Reply {
  const candidates = Array.isArray(body['candidates']) ? (body['candidates'] as JsonObject[]) : [];
  // A blocked prompt has no candidates, only promptFeedback.blockReason.
  const choices = candidates.length
    ? [...candidates].sort((a, b) => tokenCount(a['index']) - tokenCount(b['index'])).map((candidate) => choice(candidate, remember, oneCall))
    : [{ content: null, refusal: null, toolCalls: [], finish: 'content_filter' as const }];
  return { choices, usage: betaUsage(body['usageMetadata']) };
}

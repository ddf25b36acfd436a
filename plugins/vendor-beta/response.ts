import { mintId, tokenCount, type FinishReason, type JsonObject, type Reply, type ReplyChoice, type ReplyToolCall, type ReplyUsage } from '../../src/plugin-api.js';
import { referenceLogprobs } from './logprobs.js';
import type { ThoughtSignatures } from './thought-signatures.js';

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
  thought?: boolean;
  call?: ReplyToolCall;
}

/** One response part: visible text, a function call (id minted when the vendor gave none; signature kept), or nothing. */
export function readPart(raw: JsonObject, signatures: ThoughtSignatures): BetaPart {
  const call = raw['functionCall'] as JsonObject | undefined;
  if (call) {
    const id = typeof call['id'] === 'string' && call['id'] !== '' ? call['id'] : mintId('call_');
    if (typeof raw['thoughtSignature'] === 'string') signatures.remember(id, raw['thoughtSignature']);
    return { call: { id, name: String(call['name']), arguments: JSON.stringify(call['args'] ?? {}) } };
  }
  if (typeof raw['text'] === 'string' && raw['thought'] !== true) return { text: raw['text'] };
  return {};
}

export const partsOf = (candidate: JsonObject): JsonObject[] => {
  const parts = (candidate['content'] as JsonObject | undefined)?.['parts'];
  return Array.isArray(parts) ? (parts as JsonObject[]) : [];
};

function choice(candidate: JsonObject, signatures: ThoughtSignatures): ReplyChoice {
  const texts: string[] = [];
  const toolCalls: ReplyToolCall[] = [];
  for (const raw of partsOf(candidate)) {
    const read = readPart(raw, signatures);
    if (read.text !== undefined) texts.push(read.text);
    if (read.call) toolCalls.push(read.call);
  }
  const out: ReplyChoice = {
    content: texts.length ? texts.join('') : toolCalls.length ? null : '',
    toolCalls,
    finish: betaFinish(candidate['finishReason'], toolCalls.length > 0),
  };
  const logprobs = referenceLogprobs(candidate['logprobsResult']);
  if (logprobs) out.logprobs = logprobs;
  return out;
}

export function betaReply(body: JsonObject, signatures: ThoughtSignatures): Reply {
  const candidates = Array.isArray(body['candidates']) ? (body['candidates'] as JsonObject[]) : [];
  // A blocked prompt has no candidates, only promptFeedback.blockReason.
  const choices = candidates.length
    ? [...candidates].sort((a, b) => tokenCount(a['index']) - tokenCount(b['index'])).map((candidate) => choice(candidate, signatures))
    : [{ content: null, toolCalls: [], finish: 'content_filter' as const }];
  return { choices, usage: betaUsage(body['usageMetadata']) };
}

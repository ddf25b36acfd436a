import type { Call } from '../chain/call.js';
import type { Reply, ReplyUsage } from './reply.js';
import type { NeutralRequest, Part } from './request.js';

/**
 * An estimate of a request's input tokens, for where a vendor gives no count before its reply
 * ends (the Messages format's `message_start`), has no count at all (gamma's token count), or a
 * stream was cut before the vendor's count came (the prompt the ledger bills):
 * one token per 4 characters of what the model reads — system text, message text, tool calls
 * and results, shown reasoning, the tool declarations as JSON — plus 1,600 per image (about a
 * megapixel image on the vendors that publish their rule), and never less than 1. The vendor's
 * own count replaces it wherever one arrives.
 */

export const CHARS_PER_TOKEN = 4;
export const IMAGE_TOKENS = 1600;

function characters(part: Part): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text.length;
    case 'image':
      return 0;
    case 'tool_call':
      return part.name.length + JSON.stringify(part.args).length;
    case 'tool_result':
      return part.content.length;
  }
}

export function estimateInputTokens(request: NeutralRequest): number {
  let chars = request.system.reduce((sum, text) => sum + text.length, 0);
  let images = 0;
  for (const turn of request.turns) {
    for (const part of turn.parts) {
      chars += characters(part);
      if (part.type === 'image') images += 1;
    }
  }
  if (request.tools.length) chars += JSON.stringify(request.tools).length;
  return Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKENS);
}

/**
 * The gateway's input estimate (the one `count_tokens` answers) of the neutral request, read now
 * if a passthrough did not need it; a body relayed as it came that the format cannot read (a
 * content part only the vendor knows) is estimated by its size.
 */
export function estimatedPrompt(call: Call): number {
  try {
    return estimateInputTokens(call.request);
  } catch {
    return Math.max(1, Math.ceil((call.rawJson?.length ?? 0) / CHARS_PER_TOKEN));
  }
}

/**
 * What a reply shows as its usage: the vendor's counts, or — when it gave none — what the ledger
 * bills then (src/pipeline/relay.ts): the input estimate, read only now, and the output deltas
 * relayed.
 */
export function usageOrEstimate(usage: ReplyUsage | null, estimatePrompt: () => number, relayedDeltas: number): ReplyUsage {
  return usage ?? { promptTokens: estimatePrompt(), completionTokens: relayedDeltas };
}

/** Tokens of `chars` characters of text the model wrote or reads alone: a token per 4, at least 1. */
export const textTokens = (chars: number): number => Math.max(1, Math.ceil(chars / CHARS_PER_TOKEN));

/** Of a whole reply: a token per 4 characters of what the model wrote (text, refusal, reasoning, tool calls), at least 1 per choice. */
export function estimateOutputTokens(reply: Reply): number {
  let tokens = 0;
  for (const choice of reply.choices) {
    let chars = (choice.content?.length ?? 0) + (choice.refusal?.length ?? 0);
    for (const run of choice.reasoning ?? []) chars += run.text.length;
    for (const call of choice.toolCalls) chars += call.name.length + call.arguments.length;
    tokens += textTokens(chars);
  }
  return tokens;
}

/**
 * The usage of a whole reply whose vendor gave no counts: the input estimate and the output
 * estimate, marked as the gateway's. The ledger bills it and the caller is shown it, as for a
 * stream without counts (a vendor bills what it read and wrote even when it does not say).
 */
export function estimatedReplyUsage(call: Call, reply: Reply): ReplyUsage {
  return { promptTokens: estimatedPrompt(call), completionTokens: estimateOutputTokens(reply), estimated: true };
}

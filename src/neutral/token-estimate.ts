import type { Call } from '../chain/call.js';
import type { ReplyUsage } from './reply.js';
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

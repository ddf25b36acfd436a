/**
 * The neutral request and reply: what an ingress format reads a caller's body into
 * (`call.request`) and a vendor translator writes its wire request from; what a translator reads
 * the vendor's answer into and hands to the caller's format (`call.endpoint.format.output(call)`:
 * a whole `Reply` to `render`, or a stream's events to its `sink`). Both sides of the gateway
 * import it: the ingress plugins and the vendor plugins. The reasoning-state envelope is here too,
 * since an ingress writes it into a reply and reads it back from a later request.
 */

export { REASONING_EFFORTS, refuseToolNameClash } from '../neutral/request.js';
export type {
  CacheBreakpoint,
  ImageSource,
  NeutralRequest,
  Part,
  ReasoningEffort,
  ReasoningRequest,
  ReasoningState,
  ResponseFormat,
  StrictAsk,
  ToolChoice,
  ToolSpec,
  Turn,
} from '../neutral/request.js';
export { ledgerUsage } from '../neutral/reply.js';
export type { FinishReason, Reply, ReplyChoice, ReplyEnvelope, ReplyReasoning, ReplyToolCall, ReplyUsage } from '../neutral/reply.js';
export { countAnswer } from '../chain/ingress.js';
export type { ReplyOutput, ReplyStream } from '../chain/ingress.js';
export type { TranslatedBody } from '../chain/translator.js';
export { decodeReasoningState, encodeReasoningState } from '../neutral/reasoning-state.js';

/**
 * The neutral request and reply: what an ingress format reads a caller's body into
 * (`call.request`) and a vendor translator writes its wire request from; what a translator reads
 * the vendor's answer into and hands to the caller's format (`call.endpoint.format.output(call)`:
 * a whole `Reply` to `render`, or a stream's events to its `sink`). Both sides of the gateway
 * import it: the ingress plugins and the vendor plugins. The sealed reasoning-state envelope is
 * here too: an ingress seals it into a reply and opens it from a later request, and a vendor
 * leaves out a state another deployment issued.
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
export { noOpener, pinToReasoningState, stateOpener, stateSealer, verifiedState } from '../neutral/reasoning-state.js';
export type { OpenState, SealState } from '../neutral/reasoning-state.js';

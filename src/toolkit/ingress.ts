/**
 * What an ingress plugin implements and reads a caller's body with: the `IngressFormat` its
 * endpoints name (check, outline, read, output, errors), the outline the gatekeepers read, the
 * problems a body check reports, and the helpers that read members and turn sequences into the
 * neutral request with 400s naming the field in the format's own notation, and the WebSocket mode
 * of an endpoint (the route and session a plugin declares, `sessionOf` a message's call), and the
 * conversation a call belongs to (`keepAffinity`). Used by the ingress
 * plugins (a vendor passing a caller's body through writes errors in its `ErrorFormat`).
 */

export type { CallOutline, ErrorFormat, IngressFormat, RequestProblem } from '../chain/ingress.js';
export { modelMemberProblem } from '../chain/ingress.js';
export { schemaProblem } from '../reference/schema-problem.js';
export { firstInArray, members, memberOutside, typedMemberOutside, type Members, type MembersByType } from '../reference/members.js';
export {
  automaticCache,
  cacheBreakpoint,
  imageSource,
  messageBreakpoint,
  namedToolChoice,
  objectSchema,
  toolArguments,
  TurnSequence,
  type SequenceWords,
} from '../reference/sequence.js';
export { firstPart, positiveInt } from '../reference/outline.js';
export type { WebSocketLink, WebSocketRoute, WebSocketSession } from '../chain/websocket.js';
export { sessionOf } from '../http/websocket/message-call.js';
export { keepAffinity } from '../chain/affinity.js';

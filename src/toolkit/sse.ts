/**
 * Server-sent events: one parsed upstream event, and the frames the gateway writes itself (an
 * error in a stream after its 200, the reference format's closing `[DONE]`). Used by the vendor
 * translators that read an upstream stream and by the formats that write one.
 */

export type { SseEvent } from '../chain/translator.js';
export { SSE_DONE, sseErrorFrame } from '../http/respond.js';

import type { Directives } from './reply-plan.js';

/**
 * What a simulator can do wrong on purpose, for the tests of the gateway's handling of broken
 * upstreams: queued by tests (`sim.faults.push(...)`) or asked for by directives in the prompt.
 */

export interface Fault {
  /** Answer with this status and the vendor's error body. */
  status?: number;
  /** Vendor error type/status string for the error body (e.g. `overloaded_error`, `RESOURCE_EXHAUSTED`). */
  errorType?: string;
  /** The message of the error body or the in-stream error event, instead of `simulated …`. */
  message?: string;
  retryAfter?: string;
  /** A raw body instead of the vendor's error shape (e.g. non-JSON garbage), sent with `status` (default 200). */
  rawBody?: string;
  /** Content type of `rawBody` (default text/plain), e.g. `text/html` for a proxy's error page. */
  contentType?: string;
  /** Destroy the connection once the request is read, before any response byte. */
  resetBeforeHeaders?: boolean;
  /** Accept the request and never answer. */
  hang?: boolean;
  /** Wait this long before the response headers. */
  delayMs?: number;
  /** Streams: this delay between frames instead of the simulator's `chunkDelayMs`. */
  chunkDelayMs?: number;
  /** Streams: destroy the connection after this many frames. */
  resetAfterFrames?: number;
  /** Streams: after this many frames, send the vendor's in-stream error event (type `errorType`) and end. */
  errorAfterFrames?: number;
  /** End the response cleanly after this many frames, without the vendor's end marker. */
  endAfterFrames?: number;
  /** Send the headers and this many frames, then nothing more; the connection stays open. */
  stallAfterFrames?: number;
  /** Streams: the frame at this index replaced by one whose data is JSON cut short. */
  garbageFrameAt?: number;
  /** How the body reaches the wire: one byte per write, or cut one byte into every multi-byte UTF-8 character. */
  split?: 'bytes' | 'utf8';
  /** Streams: these line endings instead of the vendor's own. */
  lineEnding?: '\r\n' | '\r';
}

/**
 * Non-streamed bodies count as two frames, their halves, for the `…AfterFrames` faults:
 * `resetAfterFrames: 1` cuts a JSON body in the middle. A cut body is sent without a length.
 */
export const JSON_FRAMES = 2;

/** An SSE frame whose data is not JSON: an object cut short, as a broken proxy would pass it on. */
export const GARBAGE_FRAME = 'data: {"id": "garbled", "choices": [{"index": 0, "delta": {"content": "Hel\n\n';

/** The byte pieces of a split write: one byte each, or cut one byte into every multi-byte character. */
export function splitBytes(text: string, split: 'bytes' | 'utf8'): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const cuts: number[] = [];
  // 0xC0 and up is the lead byte of a multi-byte sequence.
  for (let at = 0; at < bytes.length; at++) if (split === 'bytes' || (bytes[at] as number) >= 0xc0) cuts.push(at + 1);
  const pieces: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    if (cut > from) pieces.push(bytes.subarray(from, cut));
    from = cut;
  }
  return pieces;
}

/** Whether the fault ends the body before its last frame (so no length can be promised). */
export const cutsBody = (fault: Fault | undefined): boolean =>
  fault?.resetAfterFrames !== undefined || fault?.endAfterFrames !== undefined || fault?.stallAfterFrames !== undefined;

export function faultFromDirectives(directives: Directives): Fault | undefined {
  const fault: Fault = {};
  if (directives.status) fault.status = directives.status;
  if (directives.hang) fault.hang = true;
  if (directives.delay_ms) fault.delayMs = directives.delay_ms;
  if (directives.chunk_delay_ms) fault.chunkDelayMs = directives.chunk_delay_ms;
  if (directives.reset_after !== undefined) fault.resetAfterFrames = directives.reset_after;
  if (directives.error_after !== undefined) fault.errorAfterFrames = directives.error_after;
  return Object.keys(fault).length ? fault : undefined;
}

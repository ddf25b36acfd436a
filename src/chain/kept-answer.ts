import type { Usage } from './call.js';

/**
 * Answers kept and given again (the response cache, docs/plugins.md#answers-kept-and-given-again).
 * A plugin asks, in `onRequest`, for the answer's pieces to be kept as they are written to the
 * caller (`call.keepAnswer(maxBytes)`); its completion hooks then find the whole answer, last
 * piece included, in `call.keptAnswer`. Another call's plugin hands such an answer back
 * (`call.answerWith(answer)`): the call is answered with it, piece for piece, with no upstream.
 */

/** An answer as the caller got it: a whole body (one piece) or a stream's frames, the last one included. */
export interface KeptAnswer {
  readonly stream: boolean;
  readonly pieces: readonly string[];
  /** The token counts of the call that produced it. */
  readonly usage: Usage;
}

/**
 * The pieces of one call's answer, kept up to `maxBytes` (UTF-8): an answer larger than that is
 * given up (`overflowed`) and its pieces dropped, so a call never holds more than `maxBytes`.
 */
export class AnswerRecorder {
  readonly pieces: string[] = [];
  bytes = 0;
  overflowed = false;

  constructor(readonly maxBytes: number) {}

  add(piece: string | Buffer): void {
    if (this.overflowed) return;
    const text = typeof piece === 'string' ? piece : piece.toString('utf8');
    this.bytes += Buffer.byteLength(text);
    if (this.bytes > this.maxBytes) {
      this.overflowed = true;
      this.pieces.length = 0;
      return;
    }
    this.pieces.push(text);
  }
}

import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { finished } from 'node:stream';
import { createParser } from 'eventsource-parser';
import type { Call } from '../chain/call.js';
import type { StreamTranslator } from '../chain/translator.js';
import { UpstreamFailure } from '../proxy/proxy-core.js';

/** How long the response headers may wait to share a write with the first frames. */
const HEADERS_ALONE_AFTER_MS = 50;

export interface StreamRelayOptions {
  idleMs: number;
  /** Observers of each frame written (the chain's onResponseChunk), or null when there are none. */
  onFrame: ((frame: string) => void) | null;
}

/**
 * Pipes one upstream SSE body to the caller through a stream translator, event by event:
 * no buffering beyond the parser's partial line, backpressure honoured, an idle timer that
 * ends a silent stream. Resolves once the upstream body ended and the translator's closing
 * frames are written (everything but `data: [DONE]`); rejects with an UpstreamFailure if the
 * upstream breaks off, goes silent, or the caller leaves, or with the translator's error.
 */
export function relayStream(call: Call, upstream: IncomingMessage, translator: StreamTranslator, options: StreamRelayOptions): Promise<void> {
  const { res } = call;
  let waitingForDrain = false;
  const headersAlone = setTimeout(() => {
    if (!res.destroyed) res.flushHeaders();
  }, HEADERS_ALONE_AFTER_MS);
  /** Frames of the upstream chunk being parsed: those that arrived together leave in one write. */
  let batch = '';
  const flush = (): void => {
    if (batch === '' || res.destroyed) {
      batch = '';
      return;
    }
    if (call.timings.firstByte === 0) {
      call.timings.firstByte = performance.now();
      clearTimeout(headersAlone);
    }
    const text = batch;
    batch = '';
    if (!res.write(text) && !waitingForDrain) {
      waitingForDrain = true;
      upstream.pause();
      res.once('drain', () => {
        waitingForDrain = false;
        upstream.resume();
      });
    }
  };
  const add = (frame: string): void => {
    if (frame === '') return;
    options.onFrame?.(frame);
    batch += frame;
  };
  // A translator refuses a malformed or error event by throwing; that ends the stream.
  let failure: unknown;
  const parser = createParser({
    onEvent: (event) => {
      if (failure !== undefined) return;
      try {
        add(translator.event({ event: event.event, data: event.data }));
      } catch (error) {
        failure = error;
        upstream.destroy();
      }
    },
  });

  return new Promise<void>((resolve, reject) => {
    // A caller who leaves ends the upstream request: nothing more is produced, or billed.
    const stopListening = call.onCallerGone(() => void upstream.destroy());
    const idle = setTimeout(() => upstream.destroy(new UpstreamFailure('stream_idle', `no stream event for ${options.idleMs} ms`)), options.idleMs);
    upstream.setEncoding('utf8');
    // The HTTP parser emits one 'data' per chunk of the upstream's chunked body, all in the same
    // tick when they arrived in one read: the write waits for the end of that tick, so frames that
    // arrived together leave in one write.
    let flushQueued = false;
    let endsInCr = false;
    const flushAtEndOfTick = (): void => {
      flushQueued = false;
      flush();
    };
    upstream.on('data', (text: string) => {
      idle.refresh();
      parser.feed(text);
      endsInCr = text.endsWith('\r');
      if (!flushQueued) {
        flushQueued = true;
        queueMicrotask(flushAtEndOfTick);
      }
    });
    finished(upstream, (error) => {
      stopListening();
      clearTimeout(idle);
      clearTimeout(headersAlone);
      // A CR at the very end is a whole line ending (SSE allows bare CRs), but the parser holds it
      // in case an LF follows: at a clean end, the LF that makes it one lets the last event out.
      if (!error && endsInCr && failure === undefined) parser.feed('\n');
      // What arrived before the end (or the break) reaches the caller first.
      if (!call.callerGone) flush();
      if (call.callerGone) {
        reject(new UpstreamFailure('caller_gone', 'the caller closed the connection'));
      } else if (failure !== undefined) {
        // eslint-disable-next-line @typescript-eslint/prefer-promise-reject-errors -- the translator's failure, relayed as it was thrown.
        reject(failure);
      } else if (error) {
        reject(error instanceof UpstreamFailure ? error : new UpstreamFailure('reset', `the upstream stream broke off (${error.message})`));
      } else {
        try {
          add(translator.end());
          flush();
          resolve();
        } catch (endError) {
          reject(endError);
        }
      }
    });
  });
}

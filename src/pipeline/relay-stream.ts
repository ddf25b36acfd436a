import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import { finished } from 'node:stream';
import { createParser } from 'eventsource-parser';
import type { Call } from '../chain/call.js';
import type { StreamTranslator } from '../chain/translator.js';
import { UpstreamFailure } from '../proxy/proxy-core.js';

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
export function relayStream(
  call: Call,
  upstream: IncomingMessage,
  translator: StreamTranslator,
  options: StreamRelayOptions,
): Promise<void> {
  const { res } = call;
  let waitingForDrain = false;
  const write = (frame: string): void => {
    if (frame === '' || res.destroyed) return;
    if (call.timings.firstByte === 0) call.timings.firstByte = performance.now();
    options.onFrame?.(frame);
    if (!res.write(frame) && !waitingForDrain) {
      waitingForDrain = true;
      upstream.pause();
      res.once('drain', () => {
        waitingForDrain = false;
        upstream.resume();
      });
    }
  };
  // A translator refuses a malformed or error event by throwing; that ends the stream.
  let failure: unknown;
  const parser = createParser({
    onEvent: (event) => {
      if (failure !== undefined) return;
      try {
        write(translator.event({ event: event.event, data: event.data }));
      } catch (error) {
        failure = error;
        upstream.destroy();
      }
    },
  });

  return new Promise<void>((resolve, reject) => {
    let idle: NodeJS.Timeout | undefined;
    const armIdle = (): void => {
      clearTimeout(idle);
      idle = setTimeout(
        () => upstream.destroy(new UpstreamFailure('stream_idle', `no stream event for ${options.idleMs} ms`)),
        options.idleMs,
      );
    };
    armIdle();
    upstream.setEncoding('utf8');
    upstream.on('data', (text: string) => {
      armIdle();
      // Frames that arrived together leave together: one write to the socket, not one per event.
      res.cork();
      parser.feed(text);
      res.uncork();
    });
    finished(upstream, (error) => {
      clearTimeout(idle);
      if (call.callerGone) {
        reject(new UpstreamFailure('caller_gone', 'the caller closed the connection'));
      } else if (failure !== undefined) {
        reject(failure);
      } else if (error) {
        reject(error instanceof UpstreamFailure ? error : new UpstreamFailure('reset', `the upstream stream broke off (${error.message})`));
      } else {
        try {
          write(translator.end());
          resolve();
        } catch (endError) {
          reject(endError);
        }
      }
    });
  });
}

import type { IncomingMessage } from 'node:http';
import { UpstreamFailure } from './proxy-core.js';

/**
 * Reads a whole upstream body (bounded), rejecting with an UpstreamFailure if it is cut short,
 * too large, or silent for `idleMs` (0: no idle limit). Every failure destroys the upstream
 * response, which aborts the upstream request.
 */
export function readUpstreamBody(upstream: IncomingMessage, limitBytes: number, idleMs = 0): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let idle: NodeJS.Timeout | undefined;
    const fail = (error: UpstreamFailure): void => {
      clearTimeout(idle);
      upstream.destroy();
      reject(error);
    };
    const armIdle = (): void => {
      if (!idleMs) return;
      clearTimeout(idle);
      idle = setTimeout(() => fail(new UpstreamFailure('stream_idle', `no body data for ${idleMs} ms`)), idleMs);
    };
    armIdle();
    upstream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        fail(new UpstreamFailure('reset', `upstream body larger than ${limitBytes} bytes`));
        return;
      }
      chunks.push(chunk);
      armIdle();
    });
    upstream.once('end', () => {
      clearTimeout(idle);
      resolve(Buffer.concat(chunks, size));
    });
    upstream.once('close', () => {
      clearTimeout(idle);
      if (!upstream.complete) reject(new UpstreamFailure('reset', 'the upstream connection closed before the body was complete'));
    });
  });
}

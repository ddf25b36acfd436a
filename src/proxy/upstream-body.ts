import type { IncomingMessage } from 'node:http';
import { UpstreamFailure } from './proxy-core.js';

/** Reads a whole upstream body (bounded), rejecting with an UpstreamFailure if it is cut short or too large. */
export function readUpstreamBody(upstream: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    upstream.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limitBytes) {
        upstream.destroy();
        reject(new UpstreamFailure('reset', `upstream body larger than ${limitBytes} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    upstream.once('end', () => resolve(Buffer.concat(chunks, size)));
    upstream.once('close', () => {
      if (!upstream.complete) reject(new UpstreamFailure('reset', 'the upstream connection closed before the body was complete'));
    });
  });
}

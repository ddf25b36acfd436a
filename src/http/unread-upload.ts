import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/** How long the rest of an upload refused before it was read is discarded before the connection is cut. */
export const LINGER_MS = 5_000;

/**
 * What to do with an upload the gateway answered before reading (a 413 from the declared length,
 * a 401 from the headers, a 413 while reading): the connection closes after the answer (unless
 * the upload is small: KEPT_UPLOAD_BYTES), but not at once. Closing over unread bytes makes the kernel send a reset, which can reach the caller
 * before the answer does (ECONNRESET instead of the 413). So the close lingers: the answer and a
 * FIN go out, the rest of the upload is read and discarded until the caller closes its side —
 * for at most LINGER_MS, then the connection is cut. A caller that sent `Expect: 100-continue`
 * and got no 100 sends nothing more: its connection closes as usual. A request that declares no
 * body keeps its connection (Node marks even those incomplete while their headers are handled).
 */
export function discardUnreadUpload(req: IncomingMessage, res: ServerResponse): void {
  if (req.complete || res.headersSent || !declaresBody(req) || isSmallUpload(req)) return;
  res.setHeader('connection', 'close');
  if (req.headers.expect?.toLowerCase() === '100-continue') return;
  const socket = req.socket;
  // Node's server ends a response marked last with destroySoon(); this one lingers instead.
  socket.destroySoon = () => lingeringClose(socket);
  // A body reader that gave up (over the limit) paused the request: what follows is discarded.
  res.once('finish', () => req.resume());
}

/**
 * No GET or HEAD route reads a body: one sent along (with or without a key) is discarded for a
 * bounded time after the answer, not held until the request timeout.
 */
export function discardBodyOfRead(req: IncomingMessage, res: ServerResponse): void {
  if (req.method === 'GET' || req.method === 'HEAD') discardUnreadUpload(req, res);
}

/**
 * An upload declared at most this long keeps its connection when refused unread: Node's server
 * reads and drops the rest after the answer (as it does for any request whose body nobody read)
 * before it parses the next request. Reading 64 KiB costs less than the new connection (and TLS
 * handshake) a close would cost the caller on every refused request; a caller that drips such an
 * upload is cut by the request timeout, as any slow upload is.
 */
export const KEPT_UPLOAD_BYTES = 64 * 1024;

/** Small, and untouched: a body reader that read part of it and paused (a 413 while reading) leaves nothing for Node to drop. */
const isSmallUpload = (req: IncomingMessage): boolean =>
  req.readableFlowing === null && req.headers['transfer-encoding'] === undefined && Number(req.headers['content-length']) <= KEPT_UPLOAD_BYTES;

const declaresBody = (req: IncomingMessage): boolean => req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;

/** Ends our side of the connection; cuts it after LINGER_MS unless the caller closed its side first. */
export function lingeringClose(socket: Duplex): void {
  if (socket.writable) socket.end();
  const cut = setTimeout(() => socket.destroy(), LINGER_MS);
  socket.once('close', () => clearTimeout(cut));
}

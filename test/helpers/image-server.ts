import { readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';

/**
 * An https image host on loopback with the self-signed test certificate
 * (test/fixtures/tls), for the guarded fetcher: `/cat.png`, redirects, a too-large body, a
 * silent answer, a non-image, a redirect to another loopback address, and `/blob/<bytes>`: an
 * "image" of that many bytes with its Content-Length, sent over `?ms=` milliseconds.
 */

export const CA_FILE = new URL('../fixtures/tls/cert.pem', import.meta.url).pathname;
const KEY_FILE = new URL('../fixtures/tls/key.pem', import.meta.url).pathname;

/** A 1×1 PNG. */
export const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
export const PNG = Buffer.from(PNG_BASE64, 'base64');

export interface ImageServer {
  origin: string;
  port: number;
  /** Paths requested so far. */
  hits: string[];
  /** TCP connections accepted so far (a refusal before connecting leaves it unchanged). */
  readonly connections: number;
  close(): Promise<void>;
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

const BLOB_PIECES = 8;

/** The headers at once (so the fetcher can reserve the declared length), then the bytes in pieces over `ms`. */
function sendBlob(res: ServerResponse, bytes: number, ms: number): void {
  res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(bytes) });
  res.flushHeaders();
  const piece = Buffer.alloc(Math.ceil(bytes / BLOB_PIECES), 7);
  let sent = 0;
  const next = (): void => {
    if (res.destroyed) return;
    const size = Math.min(piece.length, bytes - sent);
    sent += size;
    if (sent >= bytes) {
      res.end(piece.subarray(0, size));
      return;
    }
    res.write(piece.subarray(0, size));
    setTimeout(next, ms / BLOB_PIECES);
  };
  next();
}

export async function startImageServer(t: Teardown, host = '127.0.0.1'): Promise<ImageServer> {
  const hits: string[] = [];
  const sockets = new Set<Socket>();
  let port = 0;
  let connections = 0;
  const server: Server = createServer({ key: readFileSync(KEY_FILE), cert: readFileSync(CA_FILE) }, (req, res) => {
    const path = req.url ?? '/';
    hits.push(path);
    const redirect = /^\/redirect\/(\d+)$/.exec(path);
    const blob = /^\/blob\/(\d+)(?:\?ms=(\d+))?$/.exec(path);
    if (path === '/cat.png') {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(PNG.length) });
      res.end(PNG);
    } else if (path === '/unlabelled') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(PNG);
    } else if (redirect) {
      const left = Number(redirect[1]);
      res.writeHead(302, { location: left > 0 ? `/redirect/${left - 1}` : '/cat.png' });
      res.end();
    } else if (blob) {
      sendBlob(res, Number(blob[1]), Number(blob[2] ?? 0));
    } else if (path === '/to-other-loopback') {
      res.writeHead(302, { location: `https://127.0.0.2:${port}/cat.png` });
      res.end();
    } else if (path === '/big') {
      // No Content-Length: the limit must hold while reading.
      res.writeHead(200, { 'content-type': 'image/png' });
      const block = Buffer.alloc(1024 * 1024, 1);
      for (let i = 0; i < 11; i++) res.write(block);
      res.end();
    } else if (path === '/big-declared') {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(11 * 1024 * 1024) });
      res.end();
    } else if (path === '/silent') {
      // Never answers; the fetcher's deadline must end it.
    } else if (path === '/text') {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html>not an image</html>');
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  server.on('connection', (socket: Socket) => {
    connections += 1;
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  port = (server.address() as AddressInfo).port;
  const image: ImageServer = {
    origin: `https://${host}:${port}`,
    port,
    hits,
    get connections() {
      return connections;
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  t.teardown(() => image.close());
  return image;
}

import { Duplex } from 'node:stream';

/**
 * One end of an in-memory connection: what one end writes, the other reads, with backpressure
 * (a write waits until the peer's reader has taken what came before). Node's HTTP server and
 * client each take one end as their socket, so a request can pass through the gateway's own HTTP
 * handler without a TCP connection (Node calls a socket's other methods only when they exist).
 */
export class MemorySocket extends Duplex {
  peer!: MemorySocket;
  /** The peer's write waiting for this end to be read. */
  private blocked: (() => void) | null = null;
  /** The WebSocket client's address, for the request log. */
  remoteAddress: string | undefined;

  override _write(chunk: Buffer, _encoding: BufferEncoding, done: (error?: Error | null) => void): void {
    if (this.peer.push(chunk)) done();
    else this.peer.blocked = () => done();
  }

  override _read(): void {
    const blocked = this.blocked;
    this.blocked = null;
    blocked?.();
  }

  override _final(done: (error?: Error | null) => void): void {
    this.peer.push(null);
    done();
  }

  override _destroy(error: Error | null, done: (error?: Error | null) => void): void {
    this.blocked = null;
    if (!this.peer.destroyed) this.peer.destroy();
    done(error);
  }

  /** As net.Socket's: end, and close once the end is written. */
  destroySoon(): void {
    if (this.writable) this.end();
    if (this.writableFinished) this.destroy();
    else this.once('finish', () => this.destroy());
  }
}

/** Two connected ends: `[client, server]`. */
export function memorySocketPair(remoteAddress: string | undefined): [MemorySocket, MemorySocket] {
  const client = new MemorySocket();
  const server = new MemorySocket();
  client.peer = server;
  server.peer = client;
  server.remoteAddress = remoteAddress;
  return [client, server];
}

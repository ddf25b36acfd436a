import type { IncomingHttpHeaders, Server } from 'node:http';
import type { Logger } from 'pino';
import type { RawData, WebSocket } from 'ws';
import type { MessageCallAnswer, WebSocketLink, WebSocketRoute, WebSocketSession } from '../../chain/websocket.js';
import type { WebSocketConfig } from '../../config/schema.js';
import type { KeyRecord } from '../../store/store.js';
import { GatewayError } from '../errors.js';
import { runMessageCall } from './message-call.js';

/** Close codes (RFC 6455, 7.4.1). */
export const CLOSE = { normal: 1000, goingAway: 1001, unsupported: 1003, policy: 1008 } as const;

export interface ConnectionOptions {
  ws: WebSocket;
  key: KeyRecord;
  route: WebSocketRoute;
  path: string;
  headers: IncomingHttpHeaders;
  remoteAddress: string | undefined;
  server: Server;
  limits: WebSocketConfig;
  log: Logger;
}

/**
 * One open WebSocket: its messages handled one at a time, in order (reading pauses while one is
 * in flight, so a client sending ahead is held by TCP, not by the gateway's memory), and its
 * bounds — messages per connection, idle time, lifetime, what may wait to be sent.
 */
export class WebSocketConnection {
  private readonly session: WebSocketSession;
  private readonly queue: string[] = [];
  private busy = false;
  private messages = 0;
  /** Set when the connection is to close once the message in flight is answered (shutdown, a bound), with the error message to send first. */
  private closing: { code: number; reason: string; last: string | null } | null = null;
  private readonly idle: NodeJS.Timeout;
  private readonly lifetime: NodeJS.Timeout;
  private readonly goneListeners = new Set<() => void>();
  private readonly drained = new Set<() => void>();

  constructor(private readonly options: ConnectionOptions) {
    const { ws, limits } = options;
    const link: WebSocketLink = { key: options.key, send: (text) => this.send(text), call: (body, onEvent) => this.call(body, onEvent) };
    this.session = options.route.open(link);
    this.idle = setTimeout(() => this.onIdle(), limits.idle_timeout_ms);
    this.lifetime = setTimeout(() => this.onLifetimeOver(), limits.max_connection_ms);
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.once('close', () => this.onClose());
    ws.on('error', (error) => options.log.debug({ err: error }, 'websocket error'));
  }

  /** At shutdown: no further message is read; the connection closes after the one in flight is answered. */
  shutdown(): void {
    this.closeAfterReply(CLOSE.goingAway, 'The gateway is shutting down.');
  }

  /** Cuts the connection (the grace period is over). */
  terminate(): void {
    this.options.ws.terminate();
  }

  private send(text: string): void {
    const { ws } = this.options;
    if (ws.readyState !== ws.OPEN) return;
    ws.send(text, () => {
      if (this.drained.size === 0 || !this.ready()) return;
      const waiting = [...this.drained];
      this.drained.clear();
      for (const resume of waiting) resume();
    });
  }

  /** Whether what waits to be sent is within its bound. */
  private ready(): boolean {
    return this.options.ws.bufferedAmount <= this.options.limits.max_buffered_bytes;
  }

  private call(body: string, onEvent: (data: string) => void): Promise<MessageCallAnswer> {
    const { options } = this;
    return runMessageCall({
      server: options.server,
      session: this.session,
      path: options.path,
      headers: options.headers,
      remoteAddress: options.remoteAddress,
      body,
      onEvent,
      ready: () => this.ready(),
      whenReady: () => new Promise<void>((resolve) => this.drained.add(resolve)),
      onGone: (abort) => {
        this.goneListeners.add(abort);
        return () => void this.goneListeners.delete(abort);
      },
    });
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    this.idle.refresh();
    if (this.closing) return;
    if (isBinary) {
      this.refuse(new GatewayError(400, 'Binary messages are not accepted: send each message as JSON text.'), CLOSE.unsupported);
      return;
    }
    this.messages += 1;
    if (this.messages > this.options.limits.max_messages) {
      const limit = this.options.limits.max_messages;
      this.refuse(
        new GatewayError(429, `This connection has sent its ${limit} messages; open a new one.`, { code: 'websocket_message_limit_reached' }),
        CLOSE.policy,
      );
      return;
    }
    this.queue.push(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8'));
    this.next();
  }

  /** Handles the next queued message, unless one is in flight. */
  private next(): void {
    if (this.busy) return;
    const text = this.queue.shift();
    if (text === undefined) {
      if (this.closing) this.close();
      return;
    }
    this.busy = true;
    this.options.ws.pause();
    this.session
      .message(text)
      .catch((error: unknown) => {
        // A client that left mid-answer ended its call (billed for what was produced): not the gateway's failure.
        if (this.options.ws.readyState === this.options.ws.OPEN) this.options.log.error({ err: error }, 'a websocket message failed');
        else this.options.log.debug({ err: error }, 'a websocket message ended with its connection');
      })
      .finally(() => {
        this.busy = false;
        this.idle.refresh();
        // Read on: the next message, or the client's answer to the close (messages after it are dropped).
        this.options.ws.resume();
        this.next();
      });
  }

  /** A bound reached: its error message, after the reply in flight, then the close. */
  private refuse(error: GatewayError, code: number): void {
    this.closeAfterReply(code, error.message.slice(0, 120), this.session.errorMessage(error));
  }

  private closeAfterReply(code: number, reason: string, last: string | null = null): void {
    if (this.closing) return;
    this.closing = { code, reason, last };
    this.queue.length = 0;
    if (!this.busy) this.close();
  }

  private close(): void {
    const { closing } = this;
    if (!closing) return;
    if (closing.last !== null) this.send(closing.last);
    this.options.ws.close(closing.code, closing.reason);
  }

  private onIdle(): void {
    if (this.busy) this.idle.refresh();
    else this.closeAfterReply(CLOSE.normal, `No message for ${this.options.limits.idle_timeout_ms} ms.`);
  }

  private onLifetimeOver(): void {
    const minutes = Math.round(this.options.limits.max_connection_ms / 60_000);
    const error = new GatewayError(400, `This connection has been open for its ${minutes} minutes; open a new one.`, {
      code: 'websocket_connection_limit_reached',
    });
    this.refuse(error, CLOSE.normal);
  }

  private onClose(): void {
    clearTimeout(this.idle);
    clearTimeout(this.lifetime);
    this.queue.length = 0;
    for (const abort of this.goneListeners) abort();
    this.goneListeners.clear();
    for (const resume of this.drained) resume();
    this.drained.clear();
  }
}

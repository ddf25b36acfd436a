import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import { cutsBody, GARBAGE_FRAME, JSON_FRAMES, splitBytes, type Fault } from './faults.js';

/**
 * A real HTTP server on loopback that a vendor simulator plugs its routes into. It records
 * requests (for tests that check what reached the upstream), checks the vendor credential
 * when one is set, and delivers faults: queued by tests (`faults.push(...)`) or asked for by
 * directives in the prompt (see reply-plan.ts).
 */

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** When the request arrived (performance.now()), for tests that check retry pacing. */
  at: number;
}

export interface VendorErrorBody {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface SimContext {
  sim: SimServer;
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  body: unknown;
  /** The next queued fault, if any (directives are merged by the route). */
  queued: Fault | undefined;
}

export interface SimRoute {
  method: 'GET' | 'POST';
  pattern: RegExp;
  handle(context: SimContext, match: RegExpExecArray): void | Promise<void>;
}

export interface SimVendor {
  /** For logs: `gamma`, `alpha`, `beta`. */
  readonly name: string;
  readonly routes: readonly SimRoute[];
  /** True when the request carries the expected credential. */
  authenticated(headers: IncomingHttpHeaders, url: URL, apiKey: string): boolean;
  /** The vendor's error body for a status (and optional vendor type/message). */
  errorBody(status: number, message: string, type?: string): VendorErrorBody;
  /** The vendor's SSE frame for an error inside a stream that already answered 200. */
  streamErrorFrame?(message: string, type?: string): string;
}

export interface SimOptions {
  /** Credential the simulator demands; none → any request is accepted. */
  apiKey?: string;
  /** Delay between streamed frames (0: write them back to back). */
  chunkDelayMs?: number;
}

/**
 * Waits until `ready` calls back (it returns how to cancel itself), or less if the caller goes
 * away meanwhile; true when `ready` came.
 */
function unlessGone(res: ServerResponse, ready: (done: () => void) => () => void): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const settle = (came: boolean): void => {
      cancel();
      res.off('close', gone);
      resolve(came);
    };
    const gone = (): void => settle(false);
    const cancel = ready(() => settle(true));
    res.once('close', gone);
  });
}

/** Waits `ms`, or less if the caller goes away meanwhile; true when the whole wait passed. */
const waitUnlessGone = (res: ServerResponse, ms: number): Promise<boolean> =>
  unlessGone(res, (done) => {
    const timer = setTimeout(done, ms);
    return () => clearTimeout(timer);
  });

/** Waits until what was written has gone out to a caller that reads slowly (or not at all); false when it left. */
const drainedUnlessGone = (res: ServerResponse): Promise<boolean> =>
  unlessGone(res, (done) => {
    res.once('drain', done);
    return () => res.off('drain', done);
  });

const RECORD_LIMIT = 200;

export class SimServer {
  /** Faults consumed one per request, in order. */
  readonly faults: Fault[] = [];
  /** The most recent requests (bounded). */
  readonly requests: RecordedRequest[] = [];
  chunkDelayMs: number;
  /** Requests whose response has not closed yet (a hanging one stays until the gateway aborts it). */
  openRequests = 0;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private origin = '';

  constructor(
    readonly vendor: SimVendor,
    private readonly options: SimOptions = {},
  ) {
    this.chunkDelayMs = options.chunkDelayMs ?? 0;
    this.server = createServer((req, res) => {
      this.handle(req, res).catch((error: unknown) => {
        if (!res.headersSent) this.sendError(res, 500, `simulator failure: ${(error as Error).message}`);
        else res.destroy();
      });
    });
    this.server.keepAliveTimeout = 30_000;
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
  }

  /** The origin to configure as the family's base URL, e.g. `http://127.0.0.1:41234`. */
  get url(): string {
    return this.origin;
  }

  async listen(port = 0, host = '127.0.0.1'): Promise<string> {
    await new Promise<void>((resolve) => this.server.listen(port, host, resolve));
    const address = this.server.address() as AddressInfo;
    this.origin = `http://${host}:${address.port}`;
    return this.origin;
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** Sends the vendor's error body for `status`. */
  sendError(res: ServerResponse, status: number, message: string, type?: string, extraHeaders: Record<string, string> = {}): void {
    const error = this.vendor.errorBody(status, message, type);
    const text = JSON.stringify(error.body);
    res.writeHead(error.status, { 'content-type': 'application/json', ...error.headers, ...extraHeaders });
    res.end(text);
  }

  /**
   * Delivers a fault if there is one. Returns true when the request has been answered (or
   * left hanging) by it; a delay alone returns false after waiting.
   */
  async applyFault(res: ServerResponse, fault: Fault | undefined): Promise<boolean> {
    if (!fault) return false;
    if (fault.hang) return true;
    // A caller that goes away ends the wait (and its timer) at once: nothing is left to answer.
    if (fault.delayMs && !(await waitUnlessGone(res, fault.delayMs))) return true;
    if (fault.resetBeforeHeaders) {
      res.socket?.destroy();
      return true;
    }
    if (fault.rawBody !== undefined) {
      res.writeHead(fault.status ?? 200, { 'content-type': fault.contentType ?? 'text/plain' });
      res.end(fault.rawBody);
      return true;
    }
    if (fault.status) {
      const headers: Record<string, string> = fault.retryAfter ? { 'retry-after': fault.retryAfter } : {};
      this.sendError(res, fault.status, fault.message ?? `simulated ${fault.status}`, fault.errorType, headers);
      return true;
    }
    return false;
  }

  /** A JSON body, delivered as the fault says (cut, stalled, split; see JSON_FRAMES). */
  async sendJson(res: ServerResponse, body: unknown, fault?: Fault): Promise<void> {
    const text = JSON.stringify(body);
    const cut = cutsBody(fault);
    res.writeHead(200, { 'content-type': 'application/json', ...(cut ? {} : { 'content-length': String(Buffer.byteLength(text)) }) });
    const half = Math.ceil(text.length / JSON_FRAMES);
    await this.writeBody(res, [text.slice(0, half), text.slice(half)], fault, false);
  }

  /** Streams SSE frames (already framed), paced by chunkDelayMs, cut short, corrupted or split if the fault says so. */
  async sendFrames(res: ServerResponse, frames: readonly string[], fault: Fault | undefined): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const ending = fault?.lineEnding;
    const framed = frames.map((frame, index) => (index === fault?.garbageFrameAt ? GARBAGE_FRAME : frame));
    await this.writeBody(res, ending ? framed.map((frame) => frame.replace(/\r?\n/g, ending)) : framed, fault, true);
  }

  /** Writes a body frame by frame and ends it, unless the fault ends it otherwise (error event, reset, clean end, stall). */
  private async writeBody(res: ServerResponse, frames: readonly string[], fault: Fault | undefined, stream: boolean): Promise<void> {
    const errorAfter = stream && this.vendor.streamErrorFrame ? fault?.errorAfterFrames : undefined;
    const cutAfter = fault?.resetAfterFrames;
    const pace = fault?.chunkDelayMs ?? this.chunkDelayMs;
    for (const [index, frame] of frames.entries()) {
      if (res.destroyed) return;
      if (errorAfter !== undefined && index >= errorAfter) {
        res.end(this.vendor.streamErrorFrame?.(fault?.message ?? 'simulated failure mid-stream', fault?.errorType));
        return;
      }
      if (cutAfter !== undefined && index >= cutAfter) {
        res.socket?.destroy();
        return;
      }
      if (fault?.endAfterFrames !== undefined && index >= fault.endAfterFrames) {
        res.end();
        return;
      }
      if (fault?.stallAfterFrames !== undefined && index >= fault.stallAfterFrames) {
        res.flushHeaders();
        return;
      }
      if (fault?.split) await this.writeSplit(res, frame, fault.split);
      // Before a cut, wait until the frame is on the wire so the peer really sees it.
      else if (cutAfter !== undefined && index === cutAfter - 1) await new Promise<void>((resolve) => res.write(frame, () => resolve()));
      // Backpressure: a caller that does not read holds at most one buffer's worth, not the whole reply.
      else if (!res.write(frame) && !(await drainedUnlessGone(res))) return;
      if (stream && pace) await sleep(pace);
    }
    res.end();
  }

  /** One frame in pieces, each written on its own (a turn of the event loop, or 1 ms for UTF-8 cuts, between them). */
  private async writeSplit(res: ServerResponse, frame: string, split: 'bytes' | 'utf8'): Promise<void> {
    for (const piece of splitBytes(frame, split)) {
      if (res.destroyed) return;
      await new Promise<void>((resolve) => res.write(piece, () => resolve()));
      if (split === 'bytes') await nextTurn();
      else await sleep(1);
    }
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const at = performance.now();
    this.openRequests += 1;
    res.once('close', () => {
      this.openRequests -= 1;
    });
    const url = new URL(req.url ?? '/', 'http://sim');
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, headers: req.headers, body: text, at });
    if (this.requests.length > RECORD_LIMIT) this.requests.shift();

    if (this.options.apiKey && !this.vendor.authenticated(req.headers, url, this.options.apiKey)) {
      this.sendError(res, 401, 'invalid upstream credential', 'authentication_error');
      return;
    }
    const route = this.vendor.routes.find((r) => r.method === req.method && r.pattern.test(url.pathname));
    const match = route?.pattern.exec(url.pathname);
    if (!route || !match) {
      this.sendError(res, 404, `no route ${req.method} ${url.pathname}`, 'not_found_error');
      return;
    }
    let body: unknown = undefined;
    if (text) {
      try {
        body = JSON.parse(text);
      } catch {
        this.sendError(res, 400, 'body is not JSON', 'invalid_request_error');
        return;
      }
    }
    await route.handle({ sim: this, req, res, url, body, queued: this.faults.shift() }, match);
  }
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { BootError } from '../config/boot-error.js';
import type { ServerConfig } from '../config/schema.js';
import { htmlPage } from './edge.js';
import { logRequests } from './request-log.js';

/** A request handler that says whether it took the request. */
export type Entry = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface GatewayServerOptions {
  /** Tried first: the API's call endpoints. */
  api: Entry;
  /** Everything else (Express). */
  fallback: (req: IncomingMessage, res: ServerResponse) => void;
  log: Logger;
  /** How long SIGTERM lets in-flight requests finish, and the bounds on callers' connections. */
  limits: Pick<ServerConfig, 'shutdown_grace_ms' | 'headers_timeout_ms' | 'request_timeout_ms' | 'keep_alive_timeout_ms' | 'max_connections'>;
}

/** How often Node checks the header and request timeouts (its default, 30 s, would let slow clients linger that long). */
const TIMEOUT_CHECK_MS = 1000;

/** What the HTTP parser refused, as the edge answers it: status, title, explanation. */
function parserRefusal(error: NodeJS.ErrnoException): [number, string, string] {
  switch (error.code) {
    case 'HPE_HEADER_OVERFLOW':
      return [431, 'Request Header Fields Too Large', 'The request headers are larger than the gateway accepts.'];
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return [408, 'Request Timeout', 'The request did not arrive in time.'];
    default:
      return [400, 'Bad Request', 'The request could not be parsed as HTTP/1.1.'];
  }
}

/**
 * Requests Node's parser refused (bad framing, oversized headers, a client too slow to send
 * them) get the edge's small HTML page and a closed connection, instead of an empty answer —
 * also when the refusal comes in the middle of a body whose request is already being handled
 * (its response, not yet begun, carries the page).
 */
function answerParserError(error: NodeJS.ErrnoException, socket: Duplex): void {
  const inFlight = (socket as Duplex & { _httpMessage?: ServerResponse })._httpMessage;
  if (error.code === 'ECONNRESET' || !socket.writable || (inFlight && inFlight.headersSent)) {
    socket.destroy();
    return;
  }
  const [status, title, detail] = parserRefusal(error);
  const page = htmlPage(status, title, detail);
  const headers = { 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(page)), connection: 'close' };
  if (inFlight) {
    inFlight.writeHead(status, headers);
    inFlight.end(page, () => socket.destroy());
    return;
  }
  const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  socket.end(`HTTP/1.1 ${status} ${title}\r\n${head}\r\n${page}`);
}

/**
 * The gateway's HTTP server: bounded callers (header and request timeouts, idle keep-alive,
 * a connection cap), one log line per request, the API entry before Express, and a graceful
 * drain. An `Expect: 100-continue` is answered by whoever reads the body (the API's
 * body reader does so only after the key was checked), or at once for Express's routes.
 */
export class GatewayServer {
  readonly server: Server;
  private inFlight = 0;
  private drained: (() => void) | null = null;
  private draining = false;

  constructor(private readonly options: GatewayServerOptions) {
    const logRequest = logRequests(options.log);
    const handle = (req: IncomingMessage, res: ServerResponse, continueNow: boolean): void => {
      // While draining, requests that still arrive on kept-alive connections are served, and
      // those connections are told to close.
      if (this.draining) res.setHeader('connection', 'close');
      this.inFlight += 1;
      res.once('close', () => {
        this.inFlight -= 1;
        if (this.inFlight === 0) this.drained?.();
      });
      logRequest(req, res);
      if (options.api(req, res)) return;
      if (continueNow) res.writeContinue();
      options.fallback(req, res);
    };
    const { limits } = options;
    this.server = createServer(
      { headersTimeout: limits.headers_timeout_ms, requestTimeout: limits.request_timeout_ms, connectionsCheckingInterval: TIMEOUT_CHECK_MS },
      (req, res) => handle(req, res, false),
    );
    this.server.keepAliveTimeout = limits.keep_alive_timeout_ms;
    this.server.maxConnections = limits.max_connections;
    this.server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => handle(req, res, true));
    this.server.on('clientError', answerParserError);
  }

  /** Listens and resolves with the origin, e.g. `http://127.0.0.1:8080`. */
  listen(port: number, host: string): Promise<string> {
    const { server } = this;
    return new Promise((resolve, reject) => {
      // A port in use or not ours to take is the operator's to fix (HOST, PORT): one line.
      const refused = (error: NodeJS.ErrnoException): void => reject(new BootError(`cannot listen on ${host}:${port} (${error.code ?? error.message}); set HOST and PORT`));
      server.once('error', refused);
      server.listen(port, host, () => {
        server.off('error', refused);
        const address = server.address() as AddressInfo;
        resolve(`http://${host.includes(':') ? `[${host}]` : host}:${address.port}`);
      });
    });
  }

  /** No new connections; in-flight requests may finish for the grace period, then every connection closes. */
  async drain(): Promise<void> {
    const { server, options } = this;
    const grace = options.limits.shutdown_grace_ms;
    this.draining = true;
    options.log.info({ in_flight: this.inFlight, grace_ms: grace }, 'shutting down: no new connections, draining in-flight requests');
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    if (this.inFlight > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, grace);
        this.drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    if (this.inFlight > 0) options.log.warn({ in_flight: this.inFlight }, 'grace period over: closing remaining connections');
    server.closeAllConnections();
    await stopped;
  }
}

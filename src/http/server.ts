import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { BootError } from '../config/boot-error.js';
import type { ServerConfig } from '../config/schema.js';
import { createEdgeServer } from './connection-errors.js';
import { InFlight } from './in-flight.js';
import type { WebSocketHub } from './websocket/hub.js';
import { logRequests } from './request-log.js';
import { discardBodyOfRead } from './unread-upload.js';

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

/**
 * The gateway's HTTP server: bounded callers (header and request timeouts, idle keep-alive,
 * a connection cap), one log line per request, the API entry before Express, and a graceful
 * drain. An `Expect: 100-continue` is answered by whoever reads the body (the API's
 * body reader does so only after the key was checked), or at once for Express's routes.
 */
export class GatewayServer {
  readonly server: Server;
  private readonly inFlight = new InFlight();
  private draining = false;
  private webSockets: WebSocketHub | null = null;

  constructor(private readonly options: GatewayServerOptions) {
    const logRequest = logRequests(options.log);
    const handle = (req: IncomingMessage, res: ServerResponse, continueNow: boolean): void => {
      // While draining, requests that still arrive on kept-alive connections are served, and
      // those connections are told to close.
      if (this.draining) res.setHeader('connection', 'close');
      res.once('close', this.inFlight.enter());
      logRequest(req, res);
      discardBodyOfRead(req, res);
      if (options.api(req, res)) return;
      if (continueNow) res.writeContinue();
      options.fallback(req, res);
    };
    const { limits } = options;
    this.server = createEdgeServer(
      { headersTimeout: limits.headers_timeout_ms, requestTimeout: limits.request_timeout_ms, connectionsCheckingInterval: TIMEOUT_CHECK_MS },
      (req, res) => handle(req, res, false),
      (req, res) => handle(req, res, true),
    );
    this.server.keepAliveTimeout = limits.keep_alive_timeout_ms;
    this.server.maxConnections = limits.max_connections;
  }

  /** Takes the upgrades of the WebSocket endpoints (any other upgrade request is served as a plain one); closed with the server. */
  serveWebSockets(hub: WebSocketHub): void {
    this.webSockets = hub;
    this.server.on('upgrade', hub.upgrade);
  }

  /** Listens and resolves with the origin, e.g. `http://127.0.0.1:8080`. */
  listen(port: number, host: string): Promise<string> {
    const { server } = this;
    return new Promise((resolve, reject) => {
      // A port in use or not ours to take is the operator's to fix (HOST, PORT): one line.
      const refused = (error: NodeJS.ErrnoException): void =>
        reject(new BootError(`cannot listen on ${host}:${port} (${error.code ?? error.message}); set HOST and PORT`));
      server.once('error', refused);
      server.listen(port, host, () => {
        server.off('error', refused);
        const address = server.address() as AddressInfo;
        resolve(`http://${host.includes(':') ? `[${host}]` : host}:${address.port}`);
      });
    });
  }

  /**
   * No new connections; in-flight requests may finish for the grace period, then every connection
   * closes. A call cut so may still be completing (see Pipeline.settled).
   */
  async drain(): Promise<void> {
    const { server, options } = this;
    const grace = options.limits.shutdown_grace_ms;
    this.draining = true;
    options.log.info({ in_flight: this.inFlight.size, grace_ms: grace }, 'shutting down: no new connections, draining in-flight requests');
    const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    // A WebSocket closes after its reply in flight (whose call is one of the requests in flight).
    const [left] = await Promise.all([this.inFlight.settled(grace), this.webSockets?.drain(grace)]);
    if (left > 0) options.log.warn({ in_flight: left }, 'grace period over: closing remaining connections');
    this.webSockets?.terminate();
    server.closeAllConnections();
    await stopped;
  }
}

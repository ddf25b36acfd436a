import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { BootError } from '../config/boot-error.js';
import { logRequests } from './request-log.js';

/** A request handler that says whether it took the request. */
export type Entry = (req: IncomingMessage, res: ServerResponse) => boolean;

export interface GatewayServerOptions {
  /** Tried first: the API's call endpoints. */
  api: Entry;
  /** Everything else (Express). */
  fallback: (req: IncomingMessage, res: ServerResponse) => void;
  log: Logger;
  /** How long SIGTERM lets in-flight requests finish. */
  shutdownGraceMs: number;
}

/**
 * The gateway's HTTP server: one log line per request, the API entry before Express, and a
 * graceful drain. An `Expect: 100-continue` is answered by whoever reads the body (the API's
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
    this.server = createServer((req, res) => handle(req, res, false));
    this.server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => handle(req, res, true));
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
    const grace = options.shutdownGraceMs;
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

import express, { type ErrorRequestHandler, type Router } from 'express';
import type { AddressInfo } from 'node:net';
import { createEdgeServer } from './connection-errors.js';
import { notFound } from './edge.js';
import { toGatewayError } from './errors.js';
import { sendError } from './respond.js';
import { discardBodyOfRead } from './unread-upload.js';

/** A failure in a side route: our 500 envelope, never a stack trace. */
const failed: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
  if (res.headersSent) res.destroy();
  else sendError(res, toGatewayError(error));
};

/** An extra listener of the gateway process for operator routes (metrics, status) on their own port. */
export interface SideServer {
  /** e.g. `http://127.0.0.1:9464` */
  readonly origin: string;
  close(): Promise<void>;
}

export interface SideServerOptions {
  host: string;
  /** 0 picks a free port (tests). */
  port: number;
  mount: (router: Router) => void;
}

export async function startSideServer(options: SideServerOptions): Promise<SideServer> {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use((req, res, next) => {
    discardBodyOfRead(req, res);
    next();
  });
  const router = express.Router();
  options.mount(router);
  app.use(router);
  app.use(notFound);
  app.use(failed);
  const server = createEdgeServer({}, app);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    origin: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** Config schema properties of a plugin whose routes may have a port of their own: `port` (null: the gateway's) and `host`. */
export const OPERATOR_PORT_PROPERTIES = {
  port: { anyOf: [{ type: 'integer', minimum: 0, maximum: 65535 }, { type: 'null' }], default: null },
  host: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }], default: null },
} as const;

/** Where a plugin's operator routes are served: the gateway's own port, or a side port of their own. */
export interface OperatorRoutes {
  /** For the plugin's `routes` hook when they share the gateway's port. */
  routes?: (router: Router) => void;
  /** The side listener, when they have a port of their own. */
  side?: SideServer;
}

export async function placeOperatorRoutes(port: number | null, host: string, mount: (router: Router) => void): Promise<OperatorRoutes> {
  if (port === null) return { routes: mount };
  return { side: await startSideServer({ host, port, mount }) };
}

import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import type { Logger } from 'pino';
import { WebSocketServer } from 'ws';
import { Call, type Endpoint } from '../../chain/call.js';
import type { Chain } from '../../chain/chain.js';
import type { WebSocketRoute } from '../../chain/websocket.js';
import type { Clock } from '../../clock.js';
import type { WebSocketConfig } from '../../config/schema.js';
import { endInFailure } from '../../pipeline/completion.js';
import { GatewayError } from '../errors.js';
import { InFlight } from '../in-flight.js';
import { logRequests, pathOf } from '../request-log.js';
import { routeKey } from '../api-entry.js';
import { WebSocketConnection } from './connection.js';
import { messageCallHeaders } from './message-call.js';
import { serveAsPlainRequest } from './plain-request.js';

export interface WebSocketHubOptions {
  server: Server;
  chain: Chain;
  routes: readonly WebSocketRoute[];
  limits: WebSocketConfig;
  clock: Clock;
  log: Logger;
}

function destroyOnError(this: Duplex): void {
  this.destroy();
}

interface Upgradable {
  endpoint: Endpoint;
  route: WebSocketRoute;
}

/**
 * The WebSocket endpoints (docs/architecture.md#websocket-mode): the upgrade of `GET <path>`
 * authenticated by the chain's header hooks exactly as a call of that endpoint (a refusal is a
 * plain HTTP answer in the endpoint's envelope, and no socket), the connections each key may
 * hold, and the open connections, closed at shutdown after their reply in flight. Any other
 * upgrade request is served as if it had asked for none.
 */
export class WebSocketHub {
  private readonly wss: WebSocketServer;
  private readonly routes = new Map<string, Upgradable>();
  private readonly open = new Set<WebSocketConnection>();
  /** The open connections, counted for the drain's wait. */
  private readonly counted = new InFlight();
  private readonly perKey = new Map<string, number>();
  private draining = false;
  /** A refused upgrade gets the request log's line, as any answered request. */
  private readonly logRefusal: ReturnType<typeof logRequests>;

  constructor(private readonly options: WebSocketHubOptions) {
    this.logRefusal = logRequests(options.log);
    this.wss = new WebSocketServer({ noServer: true, maxPayload: options.limits.max_message_bytes, perMessageDeflate: false, clientTracking: false });
    for (const route of options.routes) {
      const endpoint = options.chain.endpoints.find((candidate) => candidate.name === route.endpoint);
      if (!endpoint) throw new Error(`a WebSocket route names the endpoint "${route.endpoint}", which no enabled ingress plugin serves`);
      this.routes.set(routeKey(endpoint.path), { endpoint, route });
    }
  }

  /** The server's `upgrade` listener. */
  readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const upgradable = this.routes.get(routeKey(pathOf(req.url)));
    if (!upgradable || req.headers.upgrade?.toLowerCase() !== 'websocket') {
      serveAsPlainRequest(this.options.server, req, socket, head);
      return;
    }
    // Node's HTTP server left the socket without an error listener: a reset during the key's check would be thrown.
    socket.on('error', destroyOnError);
    // eslint-disable-next-line @typescript-eslint/no-unsafe-class-instance-assignment -- Node's HTTP server upgrades a net.Socket (the event's type says Duplex).
    void this.accept(upgradable, req, socket as Socket, head);
  };

  /** At shutdown: idle connections close now, busy ones after their reply in flight; resolves once all have closed, or after `ms`. */
  async drain(ms: number): Promise<void> {
    this.draining = true;
    for (const connection of this.open) connection.shutdown();
    await this.counted.settled(ms);
  }

  /** The grace period is over: every connection still open is cut. */
  terminate(): void {
    for (const connection of this.open) connection.terminate();
  }

  private async accept({ endpoint, route }: Upgradable, req: IncomingMessage, socket: Socket, head: Buffer): Promise<void> {
    const { chain, log, clock, limits } = this.options;
    // The upgrade's refusals are written as any call's: a response on the socket, which then closes.
    const res = new ServerResponse(req);
    res.shouldKeepAlive = false;
    res.assignSocket(socket);
    res.once('finish', () => socket.destroySoon());
    const call = new Call(endpoint, req, res, clock.now());
    try {
      if (this.draining) throw new GatewayError(503, 'The gateway is shutting down; connect again shortly.', { headers: { 'retry-after': '1' } });
      await chain.onHeaders(call);
      const key = call.key;
      if (!key) throw new GatewayError(500, `No plugin authenticated the upgrade of ${endpoint.path}: enable auth.`);
      if ((this.perKey.get(key.id) ?? 0) >= limits.max_connections_per_key) {
        throw new GatewayError(429, `This key has ${limits.max_connections_per_key} WebSocket connections open, its most; close one first.`, {
          code: 'websocket_connections_exceeded',
        });
      }
    } catch (thrown) {
      this.logRefusal(req, res);
      await endInFailure(call, thrown, chain, log);
      return;
    }
    res.detachSocket(socket);
    // ws listens for the socket's errors from here.
    socket.off('error', destroyOnError);
    const key = call.key;
    // Called at once when the handshake is valid (ws writes its own 400 otherwise): nothing runs between the count's check and its increment.
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.perKey.set(key.id, (this.perKey.get(key.id) ?? 0) + 1);
      const connection = new WebSocketConnection({
        ws,
        key,
        route,
        path: endpoint.path,
        headers: messageCallHeaders(req.headers),
        remoteAddress: socket.remoteAddress,
        server: this.options.server,
        limits,
        log,
      });
      this.open.add(connection);
      const uncount = this.counted.enter();
      log.info({ path: endpoint.path, key_id: key.id }, 'websocket opened');
      ws.once('close', (code) => {
        log.info({ path: endpoint.path, key_id: key.id, code }, 'websocket closed');
        uncount();
        this.open.delete(connection);
        this.release(key.id);
      });
      if (this.draining) connection.shutdown();
    });
  }

  private release(keyId: string): void {
    const left = (this.perKey.get(keyId) ?? 1) - 1;
    if (left > 0) this.perKey.set(keyId, left);
    else this.perKey.delete(keyId);
  }
}

import type { GatewayError } from '../http/errors.js';
import type { KeyRecord } from '../store/store.js';
import type { EndpointName } from './call.js';

/**
 * WebSocket mode of a call endpoint (docs/architecture.md#websocket-mode): an ingress plugin
 * declares which of its endpoints may be upgraded and speaks the protocol of the messages; the
 * core owns the transport (the upgrade and its key, the bounds, backpressure, shutdown) and runs
 * each message's call through the same chain as an HTTP request of that endpoint.
 */

/** What one call made for a message answered: 200 (its events were handed over), or the refusal's status and error body. */
export interface MessageCallAnswer {
  status: number;
  /** The JSON error body of a status other than 200 (the endpoint's own envelope); null for a 200. */
  error: Record<string, unknown> | null;
}

/** The core's side of one open connection, as its session sees it. */
export interface WebSocketLink {
  /** The key the upgrade was authenticated with (every message's call is authenticated again). */
  readonly key: KeyRecord;
  /** Sends one text message (queued behind those sent before). */
  send(text: string): void;
  /**
   * Runs one call of the route's endpoint with `body` (JSON text) as its request body, through
   * the whole chain, with the upgrade request's headers: each event of its streamed answer (the
   * SSE `data`) is handed to `onEvent` in order, the answer read no faster than the connection
   * sends (backpressure). Resolves when the call has ended.
   */
  call(body: string, onEvent: (data: string) => void): Promise<MessageCallAnswer>;
}

/** One connection's protocol, made by the route for each connection that opens. */
export interface WebSocketSession {
  /** One text message. The next message is handled once the returned promise settles (one in flight per connection). */
  message(text: string): Promise<void>;
  /** A refusal the transport makes (a bound reached), written as the protocol's error message; the connection may close after it. */
  errorMessage(error: GatewayError): string;
}

/** An endpoint that may be upgraded to a WebSocket (`GET` on its path), and the session each connection gets. */
export interface WebSocketRoute {
  /** The call endpoint (an ingress's `Endpoint.name`): its path is upgraded, each message's call is one of its calls, its format writes the upgrade's refusals. */
  readonly endpoint: EndpointName;
  open(link: WebSocketLink): WebSocketSession;
}

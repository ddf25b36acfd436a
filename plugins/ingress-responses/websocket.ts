import { GatewayError, type Call, type JsonObject } from '../../src/plugin-api.js';
import { sessionOf, type WebSocketLink, type WebSocketRoute, type WebSocketSession } from '../../src/toolkit/ingress.js';
import type { StoredResponse } from './store/responses.js';

/**
 * WebSocket mode of `/v1/responses` (docs/formats/responses.md#websocket-mode): each
 * `response.create` message is one call of the endpoint, through the whole chain, answered by
 * the events of its stream, one message each; a refusal is the specification's error message.
 * The connection keeps its last response's conversation, so that `previous_response_id` naming
 * it continues without the store, also with `store: false`; a failed continuation forgets it.
 */

/** Members of a `response.create` message that belong to HTTP: every answer here is a stream. */
const TRANSPORT_MEMBERS = ['stream', 'stream_options', 'background'] as const;

/** The specification's error message: `{"type":"error","status","error":{…}}`, the error in our envelope's members. */
function errorEvent(status: number, error: unknown): string {
  return JSON.stringify({ type: 'error', status, error });
}

const refusal = (error: GatewayError): string => errorEvent(error.status, error.toEnvelope().error);

export class ResponsesSession implements WebSocketSession {
  /** The connection's last response and its conversation (bounded like a stored one), or null. */
  private last: { id: string; conversation: StoredResponse[] } | null = null;

  constructor(private readonly link: WebSocketLink) {}

  async message(text: string): Promise<void> {
    const body = createBody(text);
    if (body instanceof GatewayError) {
      this.link.send(refusal(body));
      return;
    }
    const answer = await this.link.call(JSON.stringify(body), (data) => this.link.send(data));
    if (answer.status !== 200) this.link.send(errorEvent(answer.status, answer.error?.['error'] ?? answer.error));
  }

  errorMessage(error: GatewayError): string {
    return refusal(error);
  }

  /** The conversation `previous_response_id` names when it is this connection's last response. */
  conversation(id: string): StoredResponse[] | null {
    return this.last?.id === id ? this.last.conversation : null;
  }

  /** A call of this connection ended: its conversation is kept, or a failed continuation of the kept one forgets it. */
  settled(id: string, conversation: StoredResponse[] | null, continued: unknown): void {
    if (conversation) this.last = { id, conversation };
    else if (this.last !== null && continued === this.last.id) this.last = null;
  }
}

/** The call's body from a `response.create` message, or its refusal. */
function createBody(text: string): JsonObject | GatewayError {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    return new GatewayError(400, 'The message is not valid JSON.', { code: 'invalid_json' });
  }
  if (message === null || typeof message !== 'object' || Array.isArray(message)) {
    return new GatewayError(400, 'A message is a JSON object: {"type": "response.create", …}.');
  }
  const { type, ...body } = message as JsonObject;
  if (type !== 'response.create') {
    return new GatewayError(400, `Unknown message type ${JSON.stringify(type)}: the only one is "response.create".`, { param: 'type' });
  }
  for (const member of TRANSPORT_MEMBERS) {
    if (member in body) return new GatewayError(400, `'${member}' is not sent in WebSocket mode: every response is streamed as messages.`, { param: member });
  }
  body['stream'] = true;
  return body;
}

/** The session of the call's connection, when the call is a message of a `/v1/responses` WebSocket. */
export function responsesSessionOf(call: Call): ResponsesSession | null {
  const session = sessionOf(call);
  return session instanceof ResponsesSession ? session : null;
}

export const RESPONSES_WEBSOCKET: WebSocketRoute = { endpoint: 'responses', open: (link) => new ResponsesSession(link) };

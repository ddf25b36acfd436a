import { request, type IncomingHttpHeaders, type IncomingMessage, type Server } from 'node:http';
import { createParser } from 'eventsource-parser';
import type { Call } from '../../chain/call.js';
import type { MessageCallAnswer, WebSocketSession } from '../../chain/websocket.js';
import { memorySocketPair } from './memory-socket.js';

/** The largest error body read back from a refused message's call (our envelopes are a few hundred bytes). */
const MAX_ERROR_BYTES = 64 * 1024;

/** Headers of the upgrade request that are the WebSocket handshake's or the connection's, not the calls'. */
const NOT_FORWARDED = new Set([
  'host',
  'connection',
  'upgrade',
  'content-length',
  'content-type',
  'content-encoding',
  'transfer-encoding',
  'expect',
  'keep-alive',
]);

const SESSION = Symbol('gateway.websocket-session');
interface WithSession {
  [SESSION]?: WebSocketSession;
}

/** The session whose message made this call, or null for a call that came over HTTP. */
export function sessionOf(call: Call): WebSocketSession | null {
  return (call.req.socket as WithSession)[SESSION] ?? null;
}

/** The upgrade request's headers a message's call carries (the key among them). */
export function messageCallHeaders(upgrade: IncomingHttpHeaders): IncomingHttpHeaders {
  const headers: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(upgrade)) if (!NOT_FORWARDED.has(name) && !name.startsWith('sec-websocket-')) headers[name] = value;
  return headers;
}

export interface MessageCallOptions {
  server: Server;
  session: WebSocketSession;
  path: string;
  headers: IncomingHttpHeaders;
  remoteAddress: string | undefined;
  body: string;
  onEvent: (data: string) => void;
  /** Whether the connection can take more now; when not, `whenReady` is awaited before reading on. */
  ready: () => boolean;
  whenReady: () => Promise<void>;
  /** Registers the abort of the call (the connection went away); returns how to unregister. */
  onGone: (abort: () => void) => () => void;
}

/**
 * One message's call, as a `POST` to the gateway's own HTTP handler over an in-memory connection:
 * the same edge (request log, in-flight count, graceful drain), pipeline and plugin chain as any
 * HTTP call, and none of the listening socket's bounds (the WebSocket's own TCP connection is
 * the one counted). The streamed answer's events are handed over one by one, read only as fast
 * as the WebSocket sends them.
 */
export function runMessageCall(options: MessageCallOptions): Promise<MessageCallAnswer> {
  const [client, server] = memorySocketPair(options.remoteAddress);
  (server as WithSession)[SESSION] = options.session;
  options.server.emit('connection', server);
  const bytes = Buffer.from(options.body);
  return new Promise<MessageCallAnswer>((resolve, reject) => {
    const outgoing = request({
      createConnection: () => client,
      method: 'POST',
      path: options.path,
      headers: { ...options.headers, host: 'websocket', connection: 'close', 'content-type': 'application/json', 'content-length': String(bytes.length) },
    });
    const stopListening = options.onGone(() => outgoing.destroy());
    let settled = false;
    const settle = (answer: MessageCallAnswer | Error): void => {
      if (settled) return;
      settled = true;
      stopListening();
      client.destroy();
      if (answer instanceof Error) reject(answer);
      else resolve(answer);
    };
    outgoing.on('error', settle);
    outgoing.once('response', (response) => {
      response.on('error', settle);
      if (response.statusCode === 200) relayEvents(response, options).then(() => settle({ status: 200, error: null }), settle);
      else readError(response).then(settle, settle);
    });
    outgoing.end(bytes);
  });
}

/** Hands each SSE event's data over, pausing the answer while the connection cannot take more. */
function relayEvents(response: IncomingMessage, options: MessageCallOptions): Promise<void> {
  const parser = createParser({ onEvent: (event) => options.onEvent(event.data) });
  response.setEncoding('utf8');
  return new Promise((resolve, reject) => {
    response.on('data', (text: string) => {
      parser.feed(text);
      if (options.ready()) return;
      response.pause();
      options.whenReady().then(() => response.resume(), reject);
    });
    response.once('end', resolve);
    response.once('close', () => (response.complete ? resolve() : reject(new Error('the call ended before its answer did'))));
  });
}

async function readError(response: IncomingMessage): Promise<MessageCallAnswer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_ERROR_BYTES) break;
    chunks.push(chunk);
  }
  const status = response.statusCode ?? 500;
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) return { status, error: parsed as Record<string, unknown> };
  } catch {
    // Not our JSON (an edge page): the status says it.
  }
  return { status, error: { error: { message: `The call was answered ${status}.`, type: 'internal_error', code: 'internal_error', param: null } } };
}

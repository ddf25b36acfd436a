import WebSocket from 'ws';

/**
 * A plain `ws` client of the Responses API's WebSocket mode: `turn` sends one
 * `response.create` message and resolves with every message up to its last (the terminal
 * response event, or the error message of a refusal).
 */

export type Json = Record<string, any>;

/** The events that end one response's messages. */
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed']);

export interface ResponsesSocket {
  readonly ws: WebSocket;
  /** Every message received so far, parsed. */
  readonly received: Json[];
  turn(message: Json): Promise<Json[]>;
  /** Resolves with the close's code and reason. */
  closed(): Promise<{ code: number; reason: string }>;
  close(): void;
}

/** The upgrade refused: the HTTP status and body the gateway answered. */
export interface RefusedUpgrade {
  status: number;
  body: Json;
  headers: Record<string, string | string[] | undefined>;
}

export function openResponsesSocket(origin: string, key: string | null, headers: Record<string, string> = {}): Promise<ResponsesSocket | RefusedUpgrade> {
  const url = `${origin.replace(/^http/, 'ws')}/v1/responses`;
  const ws = new WebSocket(url, { headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers } });
  const received: Json[] = [];
  let waiting: { done: (messages: Json[]) => void; from: number } | null = null;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString()) as Json;
    received.push(message);
    const ends = TERMINAL.has(message['type']) || (message['type'] === 'error' && typeof message['status'] === 'number');
    if (ends && waiting) {
      const { done, from } = waiting;
      waiting = null;
      done(received.slice(from));
    }
  });
  return new Promise((resolve, reject) => {
    ws.once('open', () =>
      resolve({
        ws,
        received,
        turn: (message) =>
          new Promise((done, failed) => {
            waiting = { done, from: received.length };
            ws.send(JSON.stringify(message));
            void closed.then(() => waiting && failed(new Error('closed before the turn ended')));
          }),
        closed: () => closed,
        close: () => ws.close(),
      }),
    );
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) as Json, headers: res.headers }));
    });
    ws.once('error', (error) => reject(error));
  });
}

export function isOpen(socket: ResponsesSocket | RefusedUpgrade): socket is ResponsesSocket {
  return 'turn' in socket;
}

/** The socket, or the test fails with what the upgrade answered. */
export async function connect(origin: string, key: string, headers: Record<string, string> = {}): Promise<ResponsesSocket> {
  const socket = await openResponsesSocket(origin, key, headers);
  if (!isOpen(socket)) throw new Error(`upgrade refused: ${socket.status} ${JSON.stringify(socket.body)}`);
  return socket;
}

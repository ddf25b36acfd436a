import type { ServerResponse } from 'node:http';
import type { GatewayError } from './errors.js';

/** Writes a complete JSON reply. The body is serialised by the caller (or passed through as bytes). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: string | Buffer,
  headers: Readonly<Record<string, string>> = {},
): void {
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(body)),
  });
  res.end(body);
}

export function sendError(res: ServerResponse, error: GatewayError): void {
  sendJson(res, error.status, JSON.stringify(error.toEnvelope()), error.headers);
}

/** The SSE frame that ends a stream that failed after its headers were sent (openai-node raises it as APIError). */
export const sseErrorFrame = (error: GatewayError): string => `data: ${JSON.stringify(error.toEnvelope())}\n\n`;

export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

export const SSE_DONE = 'data: [DONE]\n\n';

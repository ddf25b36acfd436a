import type { ServerResponse } from 'node:http';
import type { GatewayError } from './errors.js';

/**
 * Writes a complete JSON reply. The body is serialised by the caller (or passed through as bytes).
 * A string is encoded once, here: its length and its write then read the same bytes (a string
 * written as it is would be measured, joined to the headers' text and encoded again).
 */
export function sendJson(res: ServerResponse, status: number, body: string | Buffer, headers: Readonly<Record<string, string>> = {}): void {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(bytes.length),
  });
  res.end(bytes);
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

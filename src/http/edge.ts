import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { ENDPOINTS } from '../chain/call.js';
import { GatewayError } from './errors.js';
import { escapeHtml } from './html.js';
import { pathOf } from './request-log.js';
import { sendError } from './respond.js';

/**
 * The edge layer of decisions.md: what is answered before the gateway's own handling.
 * 405 (HTML, with Allow) for a documented path called with the wrong method, 404 JSON for
 * unknown paths, 413 JSON for oversized bodies (from Content-Length, and while reading),
 * 400 HTML for a URL that cannot be decoded.
 */

/** Documented paths and the methods they take (the five of the spec, plus the retrieve of /v1/models). */
export const DOCUMENTED_PATHS: ReadonlyArray<readonly [string, string]> = [
  ...Object.values(ENDPOINTS).map((e) => [e.path, e.method] as const),
  ['/v1/models', 'GET'],
  ['/v1/models/:id', 'GET'],
];

export function htmlPage(status: number, title: string, detail: string): string {
  return `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${status} ${escapeHtml(title)}</title></head>` +
    `<body><h1>${status} ${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></body></html>\n`;
}

function sendHtml(res: express.Response, status: number, title: string, detail: string, headers: Record<string, string> = {}): void {
  const page = htmlPage(status, title, detail);
  res.writeHead(status, { ...headers, 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(page)) });
  res.end(page);
}

/** Reads a request body as raw bytes (JSON is parsed later, after auth), with the size limit. */
export function rawBody(maxBytes: number): RequestHandler {
  return express.raw({ type: () => true, limit: maxBytes, inflate: true });
}

/** 405 for every method a documented path does not take. Register after the real routes. */
export function methodNotAllowed(app: Express): void {
  for (const [path, method] of DOCUMENTED_PATHS) {
    const allow = method === 'GET' ? 'GET, HEAD' : method;
    app.all(path, (req, res) => {
      sendHtml(res, 405, 'Method Not Allowed', `${req.method} is not allowed here; use ${allow}.`, { allow });
    });
  }
}

/** Unknown paths (under /v1 and elsewhere): 404 in our envelope. */
export const notFound: RequestHandler = (req, res) => {
  sendError(res, new GatewayError(404, `Unknown path ${req.method} ${req.path}. The API lives under /v1; see GET /v1/models.`));
};

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
}

const MIB = 1024 * 1024;

/** Turns body-reading and URL failures into the edge's answers; anything else becomes our 500. */
export function edgeErrors(maxBytes: number, log: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    const parser = error as BodyParserError;
    if (parser.type === 'entity.too.large') {
      const limit = maxBytes % MIB === 0 ? `${maxBytes / MIB} MiB` : `${maxBytes} bytes`;
      sendError(res, new GatewayError(413, `The request body exceeds the ${limit} limit. Send images as remote URLs (https://…) instead of base64 data.`));
      return;
    }
    if (parser.type === 'entity.parse.failed') {
      sendError(res, new GatewayError(400, 'The request body is not valid JSON.', { code: 'invalid_json' }));
      return;
    }
    if (parser.type === 'request.aborted') {
      res.destroy();
      return;
    }
    if (parser.type === 'encoding.unsupported' || parser.type === 'charset.unsupported') {
      sendError(res, new GatewayError(400, `Unsupported body encoding: ${String((error as Error).message)}.`));
      return;
    }
    if (error instanceof URIError || parser.status === 400) {
      sendHtml(res, 400, 'Bad Request', 'The request URL could not be decoded.');
      return;
    }
    if (error instanceof GatewayError) {
      sendError(res, error);
      return;
    }
    const path = pathOf(req.url);
    log.error({ err: error, path }, 'unexpected failure at the edge');
    sendError(res, new GatewayError(500, `The gateway hit an unexpected condition handling ${req.method} ${path}.`));
  };
}

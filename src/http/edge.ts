import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler, Express, RequestHandler } from 'express';
import type { Logger } from 'pino';
import { tooLarge } from './body-reader.js';
import { isStoreUnavailable } from '../store/unavailable.js';
import { GatewayError, toGatewayError } from './errors.js';
import { escapeHtml } from './html.js';
import { cutForLog } from './redact.js';
import { pathOf } from './request-log.js';
import { sendError } from './respond.js';
import { discardUnreadUpload } from './unread-upload.js';

/**
 * The edge layer (docs/api-contract.md#edge-layer): what is answered before the gateway's own handling.
 * 405 (HTML, with Allow) for a documented path called with the wrong method, 404 JSON for
 * unknown paths, 413 JSON for oversized bodies (from Content-Length, and while reading),
 * 400 HTML for a URL that cannot be decoded. Each of them discards an upload it answered
 * before reading (see discardUnreadUpload).
 */

export function htmlPage(status: number, title: string, detail: string): string {
  return (
    `<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>${status} ${escapeHtml(title)}</title></head>` +
    `<body><h1>${status} ${escapeHtml(title)}</h1><p>${escapeHtml(detail)}</p></body></html>\n`
  );
}

export function sendHtml(res: ServerResponse, status: number, title: string, detail: string, headers: Record<string, string> = {}): void {
  const page = htmlPage(status, title, detail);
  res.writeHead(status, { ...headers, 'content-type': 'text/html; charset=utf-8', 'content-length': String(Buffer.byteLength(page)) });
  res.end(page);
}

/** The edge's 405 for a documented path called with a method it does not take: HTML, with `Allow`. */
export function sendMethodNotAllowed(res: ServerResponse, method: string, allow: string): void {
  discardUnreadUpload(res.req, res);
  sendHtml(res, 405, 'Method Not Allowed', `${method} is not allowed here; use ${allow}.`, { allow });
}

/** 405 for the methods other than GET/HEAD on the GET-only paths Express serves (the model list). Register after their routes. */
export function methodNotAllowed(app: Express, getPaths: readonly string[]): void {
  for (const path of getPaths) app.all(path, (req, res) => sendMethodNotAllowed(res, req.method, 'GET, HEAD'));
}

const sendUndecodable = (res: ServerResponse): void => sendHtml(res, 400, 'Bad Request', 'The request URL could not be decoded.');

function decodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Unknown paths (under /v1 and elsewhere): 404 in our envelope, or the 400 page when the path
 * cannot be decoded (routes with parameters find that out themselves: URIError, see edgeErrors).
 */
export const notFound: RequestHandler = (req, res) => {
  discardUnreadUpload(req, res);
  if (!decodable(req.path)) sendUndecodable(res);
  else sendError(res, new GatewayError(404, `Unknown path ${req.method} ${cutForLog(req.path)}. The API lives under /v1; see GET /v1/models.`));
};

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
}

/** Turns body-reading (admin JSON bodies) and URL failures into the edge's answers, an unreachable database into 503; anything else becomes our 500. */
export function edgeErrors(maxBytes: number, log: Logger): ErrorRequestHandler {
  return (error: unknown, req, res, _next) => {
    if (res.headersSent) {
      res.destroy();
      return;
    }
    discardUnreadUpload(req, res);
    const parser = error as BodyParserError;
    if (parser.type === 'entity.too.large') {
      // The limit of the parser that refused (admin bodies have smaller ones than the API's).
      sendError(res, tooLarge(parser.limit ?? maxBytes));
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
      sendError(res, new GatewayError(400, `Unsupported body encoding: ${(error as Error).message}.`));
      return;
    }
    if (error instanceof URIError || parser.status === 400) {
      sendUndecodable(res);
      return;
    }
    if (error instanceof GatewayError || isStoreUnavailable(error)) {
      sendError(res, toGatewayError(error));
      return;
    }
    const path = pathOf(req.url);
    log.error({ err: error, path: cutForLog(path) }, 'unexpected failure at the edge');
    sendError(res, new GatewayError(500, `The gateway hit an unexpected condition handling ${req.method} ${path}.`));
  };
}

import type { Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import { ENDPOINTS, type Endpoint } from '../chain/call.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import { edgeErrors, rawBody } from './edge.js';
import { pathOf } from './request-log.js';

/**
 * The proxied POST endpoints, served without Express's router: the same body reader and the
 * same edge errors as the Express routes, the same pipeline, a few microseconds less per call.
 * Anything else (other methods and paths, 405s, admin, plugin routes) goes to Express.
 * Returns whether it took the request.
 */
export function hotPath(pipeline: Pipeline, maxBodyBytes: number, log: Logger): (req: IncomingMessage, res: ServerResponse) => boolean {
  const routes = new Map<string, Endpoint>(
    Object.values(ENDPOINTS)
      .filter((endpoint) => endpoint.method === 'POST')
      .map((endpoint) => [endpoint.path, endpoint]),
  );
  const readBody = rawBody(maxBodyBytes);
  const edgeError = edgeErrors(maxBodyBytes, log);
  return (req, res) => {
    if (req.method !== 'POST') return false;
    const endpoint = routes.get(pathOf(req.url));
    if (!endpoint) return false;
    // body-parser works on plain Node requests; the Express types are only its signature's.
    const request = req as Request;
    const response = res as Response;
    void readBody(request, response, (error?: unknown) => {
      if (error) edgeError(error, request, response, () => undefined);
      else void pipeline.serve(endpoint, req, res, Buffer.isBuffer(request.body) ? (request.body as Buffer) : undefined);
    });
    return true;
  };
}

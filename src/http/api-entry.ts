import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Endpoint } from '../chain/call.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import { sendMethodNotAllowed } from './edge.js';
import { pathOf } from './request-log.js';

/** A route key as Express would match it: case-insensitive, one trailing slash ignored. */
export const routeKey = (path: string): string => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path).toLowerCase();

/** The methods a documented path answers (a GET path also answers HEAD), for 405's `Allow`. */
export const allowedMethods = (method: 'GET' | 'POST'): string => (method === 'GET' ? 'GET, HEAD' : method);

/**
 * The one route table of the API's call endpoints and the entry that serves them: a call goes
 * straight to the pipeline (which reads its body after the header checks), a documented path
 * called with another method gets the edge's 405. Anything else — /v1/models, operator routes,
 * /admin/v1, unknown paths — is not the entry's (returns false: Express answers it).
 */
export function apiEntry(endpoints: readonly Endpoint[], pipeline: Pipeline): (req: IncomingMessage, res: ServerResponse) => boolean {
  const routes = new Map(endpoints.map((endpoint) => [routeKey(endpoint.path), endpoint]));
  return (req, res) => {
    const endpoint = routes.get(routeKey(pathOf(req.url)));
    if (!endpoint) return false;
    if (req.method === endpoint.method || (req.method === 'HEAD' && endpoint.method === 'GET')) void pipeline.serve(endpoint, req, res);
    else sendMethodNotAllowed(res, req.method ?? '', allowedMethods(endpoint.method));
    return true;
  };
}

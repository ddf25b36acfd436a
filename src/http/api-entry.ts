import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Endpoint } from '../chain/call.js';
import type { Pipeline } from '../pipeline/pipeline.js';
import { sendMethodNotAllowed } from './edge.js';
import { pathOf } from './request-log.js';

/** A path without its one trailing slash (Express ignores it). */
const trimmed = (path: string): string => (path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path);

/** A route key as Express would match it: case-insensitive, one trailing slash ignored. */
export const routeKey = (path: string): string => trimmed(path).toLowerCase();

/** The methods a documented path answers (a GET path also answers HEAD), for 405's `Allow`. */
export const allowedMethods = (methods: ReadonlyArray<Endpoint['method']>): string =>
  methods.flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method])).join(', ');

const takes = (endpoint: Endpoint, method: string | undefined): boolean => method === endpoint.method || (method === 'HEAD' && endpoint.method === 'GET');

/** The endpoints of one path (a path may take several methods: `GET` and `DELETE /v1/responses/{response_id}`). */
interface Route {
  endpoints: Endpoint[];
}

interface Template extends Route {
  key: string;
  pattern: RegExp;
  /** The names of its `{…}` parameters, in order. */
  names: string[];
}

/** A path template's pattern: each `{name}` matches one segment's text (or part of it, as in `{model}:generate`), the rest literally, in any case. */
function template(path: string, endpoint: Endpoint): Template {
  const names: string[] = [];
  const source = trimmed(path)
    .split(/(\{[^}/]+\})/)
    .map((piece) => {
      if (!piece.startsWith('{')) return piece.replace(/[.*+?^$()|[\]\\]/g, '\\$&');
      names.push(piece.slice(1, -1));
      return '([^/]+)';
    })
    .join('');
  return { endpoints: [endpoint], key: routeKey(path), pattern: new RegExp(`^${source}$`, 'i'), names };
}

/** A parameter's value as sent, percent-decoded; undecodable text stays as it came (it then names nothing). */
function decoded(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * The one route table of the API's call endpoints and the entry that serves them: a call goes
 * straight to the pipeline (which reads its body after the header checks), a documented path
 * called with another method gets the edge's 405. A path may hold `{name}` parameters, handed to
 * the call (`call.params`, case and all: ids are case-sensitive); a literal path wins over a
 * template that also matches it (`/v1/responses/compact` over `/v1/responses/{response_id}`).
 * Anything else — /v1/models, operator routes, /admin/v1, unknown paths — is not the entry's
 * (returns false: Express answers it).
 */
export function apiEntry(endpoints: readonly Endpoint[], pipeline: Pipeline): (req: IncomingMessage, res: ServerResponse) => boolean {
  const literal = new Map<string, Route>();
  const templates: Template[] = [];
  for (const endpoint of endpoints) {
    const key = routeKey(endpoint.path);
    const route = endpoint.path.includes('{') ? templates.find((t) => t.key === key) : literal.get(key);
    if (route) route.endpoints.push(endpoint);
    else if (endpoint.path.includes('{')) templates.push(template(endpoint.path, endpoint));
    else literal.set(key, { endpoints: [endpoint] });
  }
  return (req, res) => {
    const path = pathOf(req.url);
    let route = literal.get(routeKey(path));
    let params: Record<string, string> | undefined;
    for (let i = 0; !route && i < templates.length; i++) {
      const candidate = templates[i] as Template;
      const match = candidate.pattern.exec(trimmed(path));
      if (!match) continue;
      params = Object.fromEntries(candidate.names.map((name, j) => [name, decoded(match[j + 1] as string)]));
      route = candidate;
    }
    if (!route) return false;
    // A loop, not `find` with a closure: this runs for every call.
    for (const endpoint of route.endpoints) {
      if (!takes(endpoint, req.method)) continue;
      void pipeline.serve(endpoint, req, res, params);
      return true;
    }
    sendMethodNotAllowed(res, req.method ?? '', allowedMethods(route.endpoints.map((e) => e.method)));
    return true;
  };
}

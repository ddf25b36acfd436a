import { invalidRequest } from '../../src/plugin-api.js';
import { ID_PREFIX, type RequestQuery, type StatusFilter } from './store/log-store.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;
/** The longest value a text filter takes (a model, key or endpoint name is far shorter). */
const MAX_TEXT = 256;

const ID_SHAPE = new RegExp(`^${ID_PREFIX}[0-9a-f]{12}[A-Za-z0-9]{24}$`);
/** An ISO 8601 date, or date and time with a zone (`2026-11-15`, `2026-11-15T12:00:00Z`, `…+01:00`). */
const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;
const KNOWN = new Set(['key_id', 'model', 'status', 'endpoint', 'since', 'until', 'limit', 'cursor']);

/** The cursor a page hands out: the last record's id, opaque to the caller. */
export const cursorOf = (id: string): string => Buffer.from(id, 'utf8').toString('base64url');

type Query = Record<string, unknown>;

function text(query: Query, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '' || value.length > MAX_TEXT) {
    throw invalidRequest(`${name} must be given once, as 1–${MAX_TEXT} characters.`, name);
  }
  return value;
}

function status(query: Query): StatusFilter | undefined {
  const value = text(query, 'status');
  if (value === undefined) return undefined;
  if (/^[1-5]\d\d$/.test(value)) return { code: Number(value) };
  if (/^[1-5]xx$/i.test(value)) return { classOf: Number(value[0]) };
  throw invalidRequest('status must be an HTTP status (429) or a class (2xx, 4xx, 5xx).', 'status');
}

function instant(query: Query, name: string): number | undefined {
  const value = text(query, name);
  if (value === undefined) return undefined;
  const ms = /^\d{1,15}$/.test(value) ? Number(value) : ISO_INSTANT.test(value) ? Date.parse(value) : Number.NaN;
  if (!Number.isFinite(ms)) throw invalidRequest(`${name} must be an ISO 8601 instant (2026-11-15T12:00:00Z) or epoch milliseconds.`, name);
  return ms;
}

function limit(query: Query): number {
  const value = text(query, 'limit');
  if (value === undefined) return DEFAULT_LIMIT;
  const n = /^\d{1,4}$/.test(value) ? Number(value) : 0;
  if (n < 1 || n > MAX_LIMIT) throw invalidRequest(`limit must be an integer from 1 to ${MAX_LIMIT}.`, 'limit');
  return n;
}

function cursor(query: Query): string | undefined {
  const value = text(query, 'cursor');
  if (value === undefined) return undefined;
  const id = Buffer.from(value, 'base64url').toString('utf8');
  if (!ID_SHAPE.test(id) || cursorOf(id) !== value) throw invalidRequest('cursor is not a next_cursor this endpoint gave.', 'cursor');
  return id;
}

/** `GET /admin/v1/requests`'s query string as a page of the log; a 400 naming the parameter for anything else. */
export function requestQuery(query: Query): RequestQuery {
  const unknown = Object.keys(query).find((name) => !KNOWN.has(name));
  if (unknown !== undefined) throw invalidRequest(`${unknown} is not a filter of this endpoint (${[...KNOWN].join(', ')}).`, unknown);
  const page: RequestQuery = { limit: limit(query) };
  const keyId = text(query, 'key_id');
  const model = text(query, 'model');
  const endpoint = text(query, 'endpoint');
  const statusFilter = status(query);
  const since = instant(query, 'since');
  const until = instant(query, 'until');
  const before = cursor(query);
  if (keyId !== undefined) page.keyId = keyId;
  if (model !== undefined) page.model = model;
  if (endpoint !== undefined) page.endpoint = endpoint;
  if (statusFilter !== undefined) page.status = statusFilter;
  if (since !== undefined) page.since = since;
  if (until !== undefined) page.until = until;
  if (before !== undefined) page.before = before;
  if (since !== undefined && until !== undefined && until <= since) throw invalidRequest('until must be later than since.', 'until');
  return page;
}

import { GatewayError, invalidRequest, type CallWith, type Endpoint, type JsonObject } from '../../src/plugin-api.js';
import { responsesFormat } from './format.js';
import { listedInputItems } from './listed-items.js';
import type { ResponseStore } from './store/responses.js';

/**
 * The stored responses as resources (docs/formats/responses.md#retrieving-listing-deleting-cancelling): retrieve,
 * delete, list the input items, cancel. Each is answered by the gateway from the key's stored
 * responses, with no upstream call; another key's id, an expired one, one stored with
 * `store: false` or never made are one answer, a 404.
 */

const PATH = '/v1/responses/{response_id}';

export const RETRIEVAL_ENDPOINTS: readonly Endpoint[] = [
  { name: 'responses.retrieve', path: PATH, method: 'GET', upstream: false, operation: null, format: responsesFormat },
  { name: 'responses.delete', path: PATH, method: 'DELETE', upstream: false, operation: null, format: responsesFormat },
  { name: 'responses.input_items', path: `${PATH}/input_items`, method: 'GET', upstream: false, operation: null, format: responsesFormat },
  { name: 'responses.cancel', path: `${PATH}/cancel`, method: 'POST', upstream: false, operation: null, format: responsesFormat },
];

type KeyedCall = CallWith<'key'>;
type Responder = (call: KeyedCall) => Promise<JsonObject>;

/** The most input items a page may hold, and how many one holds unless asked (the reference API's). */
const MAX_PAGE = 100;
const DEFAULT_PAGE = 20;

const notFound = (id: string): GatewayError => new GatewayError(404, `Response with id '${id}' not found.`, { param: 'response_id' });

/** The call's query parameters. */
const queryOf = (call: KeyedCall): URLSearchParams => new URL(call.req.url ?? '/', 'http://gateway').searchParams;

/** A list page's `limit`: an integer from 1 to 100, 20 when absent. */
function pageLimit(raw: string | null): number {
  if (raw === null) return DEFAULT_PAGE;
  const limit = Number(raw);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE) throw invalidRequest(`limit must be an integer from 1 to ${MAX_PAGE}.`, 'limit');
  return limit;
}

/** Where an item id stands in a list, for `after` and `before`: an id that names no item of it is a 400 naming the parameter. */
function placeOf(items: readonly JsonObject[], id: string, param: 'after' | 'before', responseId: string): number {
  const index = items.findIndex((item) => item['id'] === id);
  if (index === -1) throw invalidRequest(`${param} names no input item of the response '${responseId}': '${id}'.`, param);
  return index;
}

/**
 * The responders of the retrieval endpoints, reading the key's responses kept since `since()`
 * (the usage window). Retrieving returns the response object as it was answered (its last
 * event's, or the whole reply's), rebuilt from what was stored; deleting makes it, and every
 * response that continued it, impossible to continue.
 */
export function retrievalResponders(responses: ResponseStore, since: () => number): Record<string, Responder> {
  return {
    async 'responses.retrieve'(call) {
      const id = call.params['response_id'] as string;
      // A stored response is whole: there is no generation in progress to stream (every response runs in the foreground).
      if (queryOf(call).get('stream') === 'true') {
        throw invalidRequest(
          'stream=true streams a background response in progress; every response here is answered in the foreground, and a stored one is retrieved whole.',
          'stream',
        );
      }
      const stored = await responses.retrieve(call.key.id, id, since());
      if (!stored) throw notFound(id);
      if (stored.resource === null) {
        throw new GatewayError(404, `Response with id '${id}' was stored before responses could be retrieved: it can be continued, not retrieved.`, {
          param: 'response_id',
        });
      }
      const resource = JSON.parse(stored.resource) as JsonObject;
      resource['output'] = (JSON.parse(stored.items) as { output: JsonObject[] }).output;
      return resource;
    },

    async 'responses.delete'(call) {
      const id = call.params['response_id'] as string;
      if (!(await responses.remove(call.key.id, id))) throw notFound(id);
      return { id, object: 'response', deleted: true };
    },

    async 'responses.input_items'(call) {
      const id = call.params['response_id'] as string;
      const query = queryOf(call);
      const limit = pageLimit(query.get('limit'));
      const order = query.get('order') ?? 'desc';
      if (order !== 'asc' && order !== 'desc') throw invalidRequest("order must be 'asc' or 'desc'.", 'order');
      const stored = await responses.retrieve(call.key.id, id, since());
      if (!stored) throw notFound(id);
      const items = listedInputItems(id, (JSON.parse(stored.items) as { input: JsonObject[] }).input);
      if (order === 'desc') items.reverse();
      const after = query.get('after');
      const before = query.get('before');
      const start = after === null ? 0 : placeOf(items, after, 'after', id) + 1;
      const end = before === null ? items.length : placeOf(items, before, 'before', id);
      const data = items.slice(start, Math.max(start, Math.min(end, start + limit)));
      return {
        object: 'list',
        data,
        first_id: data[0]?.['id'] ?? null,
        last_id: data.at(-1)?.['id'] ?? null,
        has_more: start + limit < end,
      };
    },

    async 'responses.cancel'(call) {
      const id = call.params['response_id'] as string;
      if (!(await responses.one(call.key.id, id, since()))) throw notFound(id);
      throw invalidRequest(
        `Response with id '${id}' cannot be cancelled: only a background response can be, and every response here is answered in the foreground.`,
        null,
      );
    },
  };
}

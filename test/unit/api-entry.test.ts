import type { IncomingMessage, ServerResponse } from 'node:http';
import t from 'tap';
import type { Endpoint } from '../../src/chain/call.js';
import type { IngressFormat } from '../../src/chain/ingress.js';
import { allowedMethods, apiEntry } from '../../src/http/api-entry.js';
import type { Pipeline } from '../../src/pipeline/pipeline.js';

/** The route table of the call endpoints: literal paths, `{name}` templates and their parameters, several methods on one path. */

const format = {} as IngressFormat;
const endpoint = (name: string, path: string, method: Endpoint['method']): Endpoint => ({ name, path, method, upstream: false, operation: null, format });

const ENDPOINTS = [
  endpoint('responses', '/v1/responses', 'POST'),
  endpoint('compact', '/v1/responses/compact', 'POST'),
  endpoint('retrieve', '/v1/responses/{response_id}', 'GET'),
  endpoint('delete', '/v1/responses/{response_id}', 'DELETE'),
  endpoint('items', '/v1/responses/{response_id}/input_items', 'GET'),
  endpoint('generate', '/v1beta/models/{model}:generateContent', 'POST'),
];

function route(method: string, url: string): { handled: boolean; served: { name: string; params: unknown } | null } {
  let served: { name: string; params: unknown } | null = null;
  const pipeline = { serve: (e: Endpoint, _req: unknown, _res: unknown, params?: unknown) => void (served = { name: e.name, params: params ?? null }) };
  const entry = apiEntry(ENDPOINTS, pipeline as unknown as Pipeline);
  const res = {} as ServerResponse;
  const handled = entry({ method, url, headers: {} } as IncomingMessage, res);
  return { handled, served };
}

t.test('a literal path, then templates; parameters as sent, decoded', async (t) => {
  t.same(route('POST', '/v1/responses').served, { name: 'responses', params: null });
  t.same(route('POST', '/v1/responses/compact').served, { name: 'compact', params: null }, 'a literal path wins over a template');
  t.same(route('GET', '/v1/responses/resp_AbC').served, { name: 'retrieve', params: { response_id: 'resp_AbC' } }, 'case kept: ids are case-sensitive');
  t.same(
    route('DELETE', '/V1/Responses/resp_x/').served,
    { name: 'delete', params: { response_id: 'resp_x' } },
    'the literal part in any case, one trailing slash',
  );
  t.same(route('GET', '/v1/responses/resp_x/input_items?limit=2').served, { name: 'items', params: { response_id: 'resp_x' } }, 'the query is not the path');
  t.same(route('GET', '/v1/responses/a%2Fb').served, { name: 'retrieve', params: { response_id: 'a/b' } }, 'percent-decoded');
  t.same(route('GET', '/v1/responses/%E0%A4%A').served, { name: 'retrieve', params: { response_id: '%E0%A4%A' } }, 'undecodable text kept as sent');
  t.same(
    route('POST', '/v1beta/models/beta-3-flash:generateContent').served,
    { name: 'generate', params: { model: 'beta-3-flash' } },
    'a parameter within a segment',
  );
  t.same(route('GET', '/v1/responses/a/b'), { handled: false, served: null }, 'a parameter is one segment: not the entry');
  t.same(route('GET', '/v1/models'), { handled: false, served: null });
});

t.test("405's Allow lists every method of the path's endpoints (the answer itself: test/e2e/responses-retrieval.test.ts)", async (t) => {
  t.equal(allowedMethods(['GET', 'DELETE']), 'GET, HEAD, DELETE');
  t.equal(allowedMethods(['POST']), 'POST');
});

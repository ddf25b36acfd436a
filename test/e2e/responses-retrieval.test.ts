import t from 'tap';
import { responseProblems, sseEvents } from '../helpers/open-responses.js';
import { FakeClock, startHarness, type Harness } from '../helpers/harness.js';

/**
 * The stored responses as resources: GET /v1/responses/{id} (the response object as it was
 * answered, every family, schema-valid), DELETE (the deletion object; the id no longer continues),
 * GET …/input_items (cursor paging), POST …/cancel (no background mode: a 400), each per key, in
 * the Responses error envelope, with no upstream call and no ledger row.
 */

type Json = Record<string, any>;
const DAY_MS = 24 * 60 * 60 * 1000;

async function call(h: Harness, key: string | null, method: string, path: string, body?: Json): Promise<{ status: number; json: Json; headers: Headers }> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key !== null) headers['authorization'] = `Bearer ${key}`;
  const res = await fetch(`${h.baseURL}${path}`, { method, headers, ...(body ? { body: JSON.stringify(body) } : {}) });
  const text = await res.text();
  const json = res.headers.get('content-type')?.startsWith('application/json') ? (JSON.parse(text) as Json) : {};
  return { status: res.status, json, headers: res.headers };
}

const upstreamCount = (h: Harness): number => h.alpha.requests.length + h.beta.requests.length + h.gamma.requests.length;

t.test('GET /v1/responses/{id} returns the response as it was answered, whole or streamed, on every family', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  for (const model of ['alpha-sonnet-4.6', 'beta-3-flash', 'gamma-5.4']) {
    const answered = await call(h, key, 'POST', '/responses', { model, instructions: 'Be brief.', input: 'Hi there', metadata: { run: 'a' } });
    const before = upstreamCount(h);
    const got = await call(h, key, 'GET', `/responses/${answered.json['id']}`);
    t.equal(got.status, 200, model);
    t.same(got.json, answered.json, `${model}: the very object answered`);
    t.same(responseProblems(got.json), [], `${model}: a ResponseResource`);
    t.equal(upstreamCount(h), before, 'no upstream call');

    const res = await fetch(`${h.baseURL}/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, input: 'Tell me more', stream: true, tools: [{ type: 'function', name: 'f', parameters: { type: 'object' } }] }),
    });
    const terminal = sseEvents(await res.text()).at(-1)?.data['response'] as Json;
    const again = await h.client(key).responses.retrieve(terminal['id']);
    t.same(JSON.parse(JSON.stringify(again)), { ...terminal, output_text: again.output_text }, `${model}: the terminal event's response`);
  }
});

t.test('retrieval is per key, within the window, and only of stored responses', async (t) => {
  const clock = new FakeClock();
  const h = await startHarness(t, { clock });
  const { key } = await h.createKey();
  const { key: other } = await h.createKey();
  const client = h.client(key);
  const stored = await client.responses.create({ model: 'gamma-5.4', input: 'Hi' });
  const unstored = await client.responses.create({ model: 'gamma-5.4', input: 'Hi', store: false });

  const theirs = await call(h, other, 'GET', `/responses/${stored.id}`);
  t.equal(theirs.status, 404, "another key's response is not found");
  t.same(theirs.json, { error: { message: `Response with id '${stored.id}' not found.`, type: 'not_found', code: 'not_found', param: 'response_id' } });
  t.equal((await call(h, key, 'GET', `/responses/${unstored.id}`)).status, 404, 'store: false is not kept');
  t.equal((await call(h, key, 'GET', '/responses/resp_nope')).status, 404, 'an unknown id');
  t.equal((await call(h, null, 'GET', `/responses/${stored.id}`)).status, 401, 'no key: 401');
  const streamed = await call(h, key, 'GET', `/responses/${stored.id}?stream=true`);
  t.equal(streamed.status, 400, 'stream=true: nothing runs in the background to stream');
  t.equal(streamed.json['error'].param, 'stream');
  const put = await call(h, key, 'PUT', `/responses/${stored.id}`);
  t.equal(put.status, 405, 'another method: 405');
  t.equal(put.headers.get('allow'), 'GET, HEAD, DELETE', "naming the path's methods");

  clock.advance(31 * DAY_MS);
  t.equal((await call(h, key, 'GET', `/responses/${stored.id}`)).status, 404, 'expired after 30 days');
});

t.test('DELETE /v1/responses/{id}: the deletion object, then neither retrievable nor continuable', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const { key: other } = await h.createKey();
  const client = h.client(key);
  const first = await client.responses.create({ model: 'alpha-sonnet-4.6', input: 'My name is Ada' });
  const second = await client.responses.create({ model: 'alpha-sonnet-4.6', previous_response_id: first.id, input: 'And?' });

  t.equal((await call(h, other, 'DELETE', `/responses/${first.id}`)).status, 404, 'another key cannot delete it');
  const deleted = await call(h, key, 'DELETE', `/responses/${first.id}`);
  t.equal(deleted.status, 200);
  t.same(deleted.json, { id: first.id, object: 'response', deleted: true });
  t.equal((await call(h, key, 'DELETE', `/responses/${first.id}`)).status, 404, 'deleted once');
  t.equal((await call(h, key, 'GET', `/responses/${first.id}`)).status, 404, 'no longer retrievable');

  const before = upstreamCount(h);
  for (const id of [first.id, second.id]) {
    const continued = await call(h, key, 'POST', '/responses', { model: 'gamma-5.4', previous_response_id: id, input: 'More' });
    t.equal(continued.status, 400, `continuing ${id === first.id ? 'it' : 'a response that continued it'}`);
    t.equal(continued.json['error'].code, 'previous_response_not_found');
  }
  t.equal(upstreamCount(h), before, 'no upstream call');
  await t.resolves(client.responses.delete(second.id), 'the official client deletes');
});

t.test('GET /v1/responses/{id}/input_items lists the input, paged by cursor', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const client = h.client(key);
  const input = [
    { role: 'developer' as const, content: 'Be terse.' },
    { type: 'message' as const, role: 'user' as const, content: 'one' },
    { type: 'message' as const, role: 'assistant' as const, content: 'two' },
    { type: 'message' as const, role: 'user' as const, content: [{ type: 'input_text' as const, text: 'three' }] },
    { type: 'message' as const, id: 'msg_mine', role: 'user' as const, content: 'four' },
  ];
  const answered = await client.responses.create({ model: 'beta-3-flash', input });

  const all = await call(h, key, 'GET', `/responses/${answered.id}/input_items?order=asc`);
  t.equal(all.status, 200);
  t.equal(all.json['object'], 'list');
  t.same(
    all.json['data'].map((item: Json) => item['content']),
    [
      [{ type: 'input_text', text: 'Be terse.' }],
      [{ type: 'input_text', text: 'one' }],
      [{ type: 'output_text', text: 'two', annotations: [] }],
      [{ type: 'input_text', text: 'three' }],
      [{ type: 'input_text', text: 'four' }],
    ],
    'every input item, oldest first, string content as its text part',
  );
  t.ok(
    all.json['data'].every((item: Json) => item['type'] === 'message' && item['status'] === 'completed' && typeof item['id'] === 'string'),
    'each with a type, a status and an id',
  );
  t.equal(all.json['data'][4].id, 'msg_mine', "an item's own id is kept");
  t.equal(new Set(all.json['data'].map((item: Json) => item['id'])).size, 5, 'ids are distinct');
  t.equal(all.json['has_more'], false);
  t.equal(all.json['first_id'], all.json['data'][0].id);
  t.equal(all.json['last_id'], 'msg_mine');

  const ids = all.json['data'].map((item: Json) => item['id'] as string);
  const newest = await call(h, key, 'GET', `/responses/${answered.id}/input_items?limit=2`);
  t.same(
    newest.json['data'].map((item: Json) => item['id']),
    [ids[4], ids[3]],
    'newest first by default',
  );
  t.equal(newest.json['has_more'], true);
  const next = await call(h, key, 'GET', `/responses/${answered.id}/input_items?limit=2&after=${newest.json['last_id']}`);
  t.same(
    next.json['data'].map((item: Json) => item['id']),
    [ids[2], ids[1]],
    'after: the page that follows',
  );
  const before = await call(h, key, 'GET', `/responses/${answered.id}/input_items?order=asc&before=${ids[2]}`);
  t.same(
    before.json['data'].map((item: Json) => item['id']),
    [ids[0], ids[1]],
    'before: the items ahead of it',
  );
  t.equal(before.json['has_more'], false);
  const again = await call(h, key, 'GET', `/responses/${answered.id}/input_items?order=asc`);
  t.same(again.json['data'], all.json['data'], 'the same ids at every listing');

  const pages: string[] = [];
  for await (const item of client.responses.inputItems.list(answered.id, { limit: 2, order: 'asc' })) pages.push(item.id);
  t.same(pages, ids, "the official client's paging walks them all");

  for (const [query, param] of [
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=two', 'limit'],
    ['order=up', 'order'],
    ['after=msg_nope', 'after'],
    ['before=msg_nope', 'before'],
  ] as const) {
    const bad = await call(h, key, 'GET', `/responses/${answered.id}/input_items?${query}`);
    t.equal(bad.status, 400, query);
    t.equal(bad.json['error'].param, param, `${query} names ${param}`);
  }
  const { key: other } = await h.createKey();
  t.equal((await call(h, other, 'GET', `/responses/${answered.id}/input_items`)).status, 404, "another key's response");
});

t.test('POST /v1/responses/{id}/cancel: no response runs in the background, so none can be cancelled', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const answered = await h.client(key).responses.create({ model: 'gamma-5.4', input: 'Hi' });
  const cancelled = await call(h, key, 'POST', `/responses/${answered.id}/cancel`);
  t.equal(cancelled.status, 400);
  t.match(cancelled.json['error'], { type: 'invalid_request', code: 'invalid_request', param: null, message: /only a background response/ });
  t.equal((await call(h, key, 'POST', '/responses/resp_nope/cancel')).status, 404, 'an unknown id: 404');
  t.equal((await call(h, key, 'GET', `/responses/${answered.id}/cancel`)).status, 405, 'cancel is a POST');
});

t.test('the retrieval paths write no ledger row and are counted under their own endpoint label', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.createKey();
  const answered = await h.client(key).responses.create({ model: 'gamma-5.4', input: 'Hi' });
  const rows = async (): Promise<number> => ((await (await h.admin('GET', '/usage')).json()) as Json)['data'].length as number;
  const ledger = await rows();
  await call(h, key, 'GET', `/responses/${answered.id}`);
  await call(h, key, 'GET', `/responses/${answered.id}/input_items`);
  await call(h, key, 'DELETE', `/responses/${answered.id}`);
  t.equal(await rows(), ledger, 'no ledger row: no upstream call was made');
  const metrics = await (await fetch(`${h.origin}/metrics`)).text();
  for (const endpoint of ['responses.retrieve', 'responses.input_items', 'responses.delete']) {
    t.match(metrics, new RegExp(`gateway_requests_total\\{[^}]*endpoint="${endpoint.replace('.', '\\.')}"`), endpoint);
  }
});

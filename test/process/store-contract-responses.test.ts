import type { StoredResponse } from '../../plugins/ingress-responses/store/responses.js';
import { withPluginStates } from '../helpers/plugin-state.js';
import { contract } from '../helpers/store-backends.js';
import { newKey } from '../helpers/store-fixtures.js';

/** The store contract, part 6: ResponseStore (Responses API responses kept for previous_response_id) — on SQLite and PostgreSQL. */

const response = (id: string, keyId: string, previousId: string | null, createdAt: number): StoredResponse => ({
  id,
  keyId,
  previousId,
  createdAt,
  items: JSON.stringify({ input: [{ role: 'user', content: `to ${id}` }], output: [] }),
  deployment: null,
});

contract('responses: the deployment that answered comes back with the thread and the response', async (t, db) => {
  const store = await withPluginStates(await db.open());
  const { key } = await newKey(store);
  const first = { ...response('resp_a', key.id, null, 1_000), deployment: 'east' };
  const second = { ...response('resp_b', key.id, 'resp_a', 2_000), deployment: 'west' };
  for (const r of [first, second]) await store.responses.save(r);
  t.same(
    (await store.responses.thread(key.id, 'resp_b', 0)).map((r) => r.deployment),
    ['east', 'west'],
    'each response its own, oldest first',
  );
  t.equal((await store.responses.one(key.id, 'resp_a', 0))?.deployment, 'east');
  const { deployment: _unknown, ...older } = response('resp_c', key.id, null, 3_000);
  await store.responses.save(older);
  t.equal((await store.responses.one(key.id, 'resp_c', 0))?.deployment, null, 'none given: null');
});

contract('responses: a thread comes back whole, oldest first, and only to its own key', async (t, db) => {
  const store = await withPluginStates(await db.open());
  const { key: mine } = await newKey(store);
  const { key: other } = await newKey(store);
  const first = response('resp_a', mine.id, null, 1_000);
  const second = response('resp_b', mine.id, 'resp_a', 2_000);
  const third = response('resp_c', mine.id, 'resp_b', 3_000);
  const branch = response('resp_d', mine.id, 'resp_a', 4_000);
  for (const r of [first, second, third, branch, response('resp_x', other.id, null, 1_500)]) await store.responses.save(r);

  t.same(await store.responses.thread(mine.id, 'resp_c', 0), [first, second, third], 'the chain back to its first response');
  t.same(await store.responses.thread(mine.id, 'resp_d', 0), [first, branch], 'a branch has only its own ancestors');
  t.same(await store.responses.thread(mine.id, 'resp_a', 0), [first]);
  t.same(await store.responses.thread(other.id, 'resp_c', 0), [], "another key's response is not found");
  t.same(await store.responses.thread(mine.id, 'resp_x', 0), [], "nor is another key's id asked by this key");
  t.same(await store.responses.thread(mine.id, 'resp_nope', 0), [], 'an unknown id');
  const big = 'é'.repeat(300_000);
  await store.responses.save({ ...response('resp_big', mine.id, null, 5_000), items: big });
  t.equal((await store.responses.thread(mine.id, 'resp_big', 0))[0]?.items, big, 'items come back as written');
  await t.rejects(store.responses.save(response('resp_a', mine.id, null, 6_000)), 'an id is stored once');
});

contract('responses: one response by its key, within the window (what an item_reference reads)', async (t, db) => {
  const store = await withPluginStates(await db.open());
  const { key: mine } = await newKey(store);
  const { key: other } = await newKey(store);
  const first = response('resp_a', mine.id, null, 1_000);
  const second = response('resp_b', mine.id, 'resp_a', 2_000);
  for (const r of [first, second, response('resp_x', other.id, null, 1_500)]) await store.responses.save(r);
  t.same(await store.responses.one(mine.id, 'resp_b', 0), second, 'the response alone, not its thread');
  t.same(await store.responses.one(mine.id, 'resp_b', 2_000), second, 'created at `since` is kept');
  t.equal(await store.responses.one(mine.id, 'resp_b', 2_001), null, 'expired');
  t.equal(await store.responses.one(mine.id, 'resp_x', 0), null, "another key's response");
  t.equal(await store.responses.one(other.id, 'resp_a', 0), null, 'asked by another key');
  t.equal(await store.responses.one(mine.id, 'resp_nope', 0), null, 'an unknown id');
});

contract('responses: retrieve reads the response object and items by key; remove deletes one and breaks what continued it', async (t, db) => {
  const store = await withPluginStates(await db.open());
  const { key: mine } = await newKey(store);
  const { key: other } = await newKey(store);
  const resource = JSON.stringify({ id: 'resp_a', object: 'response', output: [], note: 'é'.repeat(1_000) });
  const first = response('resp_a', mine.id, null, 1_000);
  await store.responses.save({ ...first, resource });
  await store.responses.save(response('resp_b', mine.id, 'resp_a', 2_000));
  t.same(await store.responses.retrieve(mine.id, 'resp_a', 0), { items: first.items, resource }, 'the object and the items, as written');
  t.same(
    await store.responses.retrieve(mine.id, 'resp_b', 0),
    { items: response('resp_b', mine.id, 'resp_a', 2_000).items, resource: null },
    'none saved: null',
  );
  t.equal(await store.responses.retrieve(mine.id, 'resp_a', 1_001), null, 'expired');
  t.equal(await store.responses.retrieve(other.id, 'resp_a', 0), null, 'asked by another key');

  t.equal(await store.responses.remove(other.id, 'resp_a'), false, 'another key cannot delete it');
  t.equal(await store.responses.remove(mine.id, 'resp_a'), true);
  t.equal(await store.responses.remove(mine.id, 'resp_a'), false, 'once');
  t.equal(await store.responses.retrieve(mine.id, 'resp_a', 0), null, 'gone');
  t.same(await store.responses.thread(mine.id, 'resp_b', 0), [], 'a response that continued it is no longer continued');
  t.equal(await store.responses.remove(mine.id, 'resp_nope'), false, 'an unknown id');
});

contract('responses: expired links break the thread; prune deletes by age', async (t, db) => {
  const store = await withPluginStates(await db.open());
  const { key } = await newKey(store);
  await store.responses.save(response('resp_1', key.id, null, 1_000));
  await store.responses.save(response('resp_2', key.id, 'resp_1', 2_000));
  await store.responses.save(response('resp_3', key.id, 'resp_2', 3_000));
  t.same(
    (await store.responses.thread(key.id, 'resp_3', 3_000)).map((r) => r.id),
    [],
    'an ancestor older than `since` ends the conversation',
  );
  t.same(await store.responses.thread(key.id, 'resp_3', 3_001), [], 'itself expired');
  t.same(
    (await store.responses.thread(key.id, 'resp_3', 1_000)).map((r) => r.id),
    ['resp_1', 'resp_2', 'resp_3'],
    'at `since` is kept',
  );

  t.equal(await store.responses.prune(2_000), 1, 'only the response created before the bound');
  t.same(await store.responses.thread(key.id, 'resp_3', 0), [], 'a pruned ancestor breaks the thread');
  t.same(await store.responses.thread(key.id, 'resp_2', 0), [], 'for every descendant');
  t.equal(await store.responses.prune(2_000), 0);
  t.equal(await store.responses.prune(10_000), 2);
  const left = await db.query('SELECT COUNT(*) AS n FROM responses');
  t.equal(Number(left[0]?.['n']), 0);
});

contract('responses: the saves of one turn are written together, and a bad one fails alone', async (t, db) => {
  const store = await withPluginStates(await db.open());
  const { key } = await newKey(store);
  await store.responses.save(response('resp_taken', key.id, null, 1_000));
  // Queued in one turn: one group commit (SQLite) or one statement (PostgreSQL), then one by one when refused.
  const results = await Promise.allSettled([
    store.responses.save(response('resp_p1', key.id, null, 2_000)),
    store.responses.save(response('resp_taken', key.id, null, 2_000)),
    store.responses.save(response('resp_p2', key.id, 'resp_p1', 2_000)),
  ]);
  t.same(
    results.map((r) => r.status),
    ['fulfilled', 'rejected', 'fulfilled'],
    'only the duplicate id is refused',
  );
  t.same(
    (await store.responses.thread(key.id, 'resp_p2', 0)).map((r) => r.id),
    ['resp_p1', 'resp_p2'],
    'the others are stored',
  );
  t.equal((await store.responses.thread(key.id, 'resp_taken', 0))[0]?.createdAt, 1_000, 'the first response under the id is untouched');
});

contract("responses: trim keeps a key's newest within its byte budget and deletes the older ones", async (t, db) => {
  const store = await withPluginStates(await db.open());
  const { key } = await newKey(store);
  const { key: other } = await newKey(store);
  // 100, 200 (100 characters: the budget counts bytes) and 100 bytes; the last two share their millisecond, the id orders them.
  const sized = (id: string, createdAt: number, items: string): StoredResponse => ({ id, keyId: key.id, previousId: null, createdAt, items });
  for (const r of [sized('resp_1', 1_000, 'a'.repeat(100)), sized('resp_2', 2_000, 'é'.repeat(100)), sized('resp_3', 2_000, 'b'.repeat(100))])
    await store.responses.save(r);
  await store.responses.save({ ...response('resp_x', other.id, null, 500), items: 'x'.repeat(1_000) });
  const left = async (keyId: string, ids: string[]): Promise<string[]> => {
    const found = await Promise.all(ids.map(async (id) => ((await store.responses.thread(keyId, id, 0)).length ? [id] : [])));
    return found.flat();
  };

  t.equal(await store.responses.trim(key.id, 400), 0, 'all within the budget: nothing goes');
  t.equal(await store.responses.trim(key.id, 300), 1, 'the oldest goes');
  t.same(await left(key.id, ['resp_1', 'resp_2', 'resp_3']), ['resp_2', 'resp_3'], 'the newest 300 bytes stay');
  t.equal(await store.responses.trim(key.id, 299), 1, 'one byte less: the next oldest goes too');
  t.same(await left(key.id, ['resp_2', 'resp_3']), ['resp_3'], 'of one millisecond, the greater id is the newer');
  t.equal(await store.responses.trim(key.id, 99), 1, 'a budget under the newest one: it goes too');
  t.same(await left(other.id, ['resp_x']), ['resp_x'], "another key's responses are not counted nor touched");
});

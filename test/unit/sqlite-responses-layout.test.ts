import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { SQLITE_RESPONSE_MIGRATIONS } from '../../plugins/ingress-responses/store/migrations.js';
import type { ResponseStore, StoredResponse } from '../../plugins/ingress-responses/store/responses.js';
import { TRIM_CHUNK_ROWS, TRIM_CHUNK_SQL } from '../../plugins/ingress-responses/store/sqlite-responses.js';
import { RESPONSE_STATE } from '../../plugins/ingress-responses/store/state.js';
import { openStore } from '../../src/store/open-store.js';
import { PRUNE_CHUNK_ROWS } from '../../src/store/sqlite/chunked-delete.js';
import { migrate, migrateTrack } from '../../src/store/sqlite/migrate.js';
import { configureConnection } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';
import { newKey } from '../helpers/store-fixtures.js';

/**
 * SQLite keeps no index of stored responses by time (the ingress-responses plugin's migration
 * 18): each b-tree a commit touches is a page written to the WAL, and the prune by age walks the
 * rows in the order they were stored. Its index by key carries each response's size (migration
 * 21), which the trim sums.
 */

const dir = mkdtempSync(join(tmpdir(), 'responses-layout-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

const response = (id: string, keyId: string, previousId: string | null, createdAt: number): StoredResponse => ({
  id,
  keyId,
  previousId,
  createdAt,
  items: `{"input":[],"output":[{"to":"${id}"}]}`,
  deployment: null,
});

const TRACK = RESPONSE_STATE.name;

/** The core's tables and the responses plugin's track up to just before `version`, with one key, `key_old`. */
function databaseBefore(path: string, version: number): Database.Database {
  const db = new Database(path);
  configureConnection(db);
  migrate(db);
  migrateTrack(
    db,
    TRACK,
    SQLITE_RESPONSE_MIGRATIONS.filter((m) => m.version < version),
  );
  db.prepare("INSERT INTO keys (id, name, status, created_at, updated_at) VALUES ('key_old', 'old', 'active', 0, 0)").run();
  return db;
}

/** The plugin's stored responses on a store opened on `path`, closed when `t` ends. */
async function responsesAt(t: Test, path: string): Promise<{ store: Store; responses: ResponseStore }> {
  const store = await openStore({ path });
  t.teardown(() => store.close());
  return { store, responses: await store.extend(RESPONSE_STATE) };
}

t.test('migration 18 drops the index by time and keeps every stored response', async (t) => {
  const path = join(dir, 'upgraded.db');
  // A key and responses as the store at version 17 wrote them.
  const db = databaseBefore(path, 18);
  const insert = db.prepare('INSERT INTO responses (id, key_id, previous_id, created_at, items) VALUES (?, ?, ?, ?, ?)');
  for (const r of [response('resp_1', 'key_old', null, 1_000), response('resp_2', 'key_old', 'resp_1', 2_000), response('resp_3', 'key_old', null, 3_000)]) {
    insert.run(r.id, r.keyId, r.previousId, r.createdAt, r.items);
  }

  t.same(migrateTrack(db, TRACK, SQLITE_RESPONSE_MIGRATIONS)[0], 18, 'migration 18 was the first pending');
  const trees = db.prepare("SELECT type, name FROM sqlite_master WHERE tbl_name = 'responses' ORDER BY type, name").all();
  db.close();
  t.same(
    trees,
    [
      { type: 'index', name: 'responses_by_key' },
      { type: 'index', name: 'sqlite_autoindex_responses_1' },
      { type: 'table', name: 'responses' },
    ],
    'the rows, the id key and the index by key: none by time',
  );

  const { responses } = await responsesAt(t, path);
  t.same(
    await responses.thread('key_old', 'resp_2', 0),
    [response('resp_1', 'key_old', null, 1_000), response('resp_2', 'key_old', 'resp_1', 2_000)],
    'a thread stored before reads back whole',
  );
  await t.rejects(responses.save(response('resp_1', 'key_old', null, 4_000)), 'an id is still stored once');
  t.equal(await responses.prune(2_500), 2, 'the prune by age reads the carried rows in time order');
  t.same(
    (await responses.thread('key_old', 'resp_3', 0)).map((r) => r.id),
    ['resp_3'],
  );
});

t.test('the prune walks rows in the order they were stored: one stored late goes at a later prune, and is never read after its time', async (t) => {
  const { store, responses } = await responsesAt(t, join(dir, 'prune-order.db'));
  const { key } = await newKey(store);
  await responses.save(response('resp_early', key.id, null, 1_000));
  await responses.save(response('resp_new', key.id, null, 10_000));
  // A long stream's response: created (admitted) before the one above, stored after it.
  await responses.save(response('resp_late', key.id, null, 2_000));
  t.equal(await responses.prune(5_000), 1, 'the walk stops at the first newer row');
  t.same(await responses.thread(key.id, 'resp_late', 5_000), [], 'the late one is past its window: not read');
  t.equal(await responses.prune(20_000), 2, 'it goes once the rows before it have');
});

t.test("the trim sums a key's sizes from the index by key alone (migration 21), and carried rows count whole", async (t) => {
  const path = join(dir, 'sizes.db');
  const db = databaseBefore(path, 21);
  const insert = db.prepare('INSERT INTO responses (id, key_id, previous_id, created_at, items) VALUES (?, ?, ?, ?, ?)');
  // Three responses of 100 bytes (one with a two-byte character) as version 20 stored them.
  insert.run('resp_1', 'key_old', null, 1_000, 'a'.repeat(100));
  insert.run('resp_2', 'key_old', null, 2_000, `${'b'.repeat(98)}é`);
  insert.run('resp_3', 'key_old', null, 3_000, 'c'.repeat(100));

  t.same(migrateTrack(db, TRACK, SQLITE_RESPONSE_MIGRATIONS)[0], 21, 'migration 21 was the first pending');
  const plan = (db.prepare(`EXPLAIN QUERY PLAN ${TRIM_CHUNK_SQL}`).all('key_old', Number.MAX_SAFE_INTEGER, '') as Array<{ detail: string }>).map(
    (row) => row.detail,
  );
  db.close();
  t.ok(
    plan.some((detail) => detail.includes('USING COVERING INDEX responses_by_key')),
    `no row is read for its size: ${plan.join('; ')}`,
  );

  const { responses } = await responsesAt(t, path);
  t.equal(await responses.trim('key_old', 200), 1, 'sizes are bytes (the carried rows have theirs in the new index): the oldest goes');
  t.same(
    (await responses.thread('key_old', 'resp_2', 0)).map((r) => r.id),
    ['resp_2'],
    'the two newest stay',
  );
});

t.test("docs/formats/responses.md states the trim's steps as the code takes them", async (t) => {
  const doc = readFileSync('docs/formats/responses.md', 'utf8');
  t.match(doc, `sums sizes in statements of ${TRIM_CHUNK_ROWS.toLocaleString('en')} responses`);
  t.match(doc, `deletes in statements of at most ${PRUNE_CHUNK_ROWS} rows`);
});

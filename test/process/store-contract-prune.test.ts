import type { Test } from 'tap';
import { PRUNE_CHUNK_ROWS } from '../../src/store/sqlite/chunked-delete.js';
import { TRIM_SIZES_SQL } from '../../plugins/ingress-responses/store/postgres-responses.js';
import { TRIM_CHUNK_ROWS, TRIM_CHUNK_SQL } from '../../plugins/ingress-responses/store/sqlite-responses.js';
import { withPluginStates } from '../helpers/plugin-state.js';
import { contract } from '../helpers/store-backends.js';
import type { KeyRecord } from '../../src/store/store.js';
import { newKey } from '../helpers/store-fixtures.js';

/**
 * The store contract: pruning many rows (stored responses, thought signatures) removes them all
 * and nothing newer; on SQLite, whose statements are synchronous, without holding the event loop
 * for the whole delete: it goes in chunks with turns of the event loop between them.
 */

const MANY = PRUNE_CHUNK_ROWS * 2 + 200;

/** Runs `work` while counting the turns the event loop made meanwhile (setImmediate callbacks). */
async function turnsDuring<T>(work: () => Promise<T>): Promise<{ result: T; turns: number }> {
  let turns = 0;
  let counting = true;
  const tick = (): void => {
    if (!counting) return;
    turns += 1;
    setImmediate(tick);
  };
  setImmediate(tick);
  const result = await work();
  counting = false;
  return { result, turns };
}

/** SQLite only: PostgreSQL's statements never hold the event loop, however long they take. */
function checkTurns(t: Test, backend: string, turns: number): void {
  if (backend !== 'sqlite') return;
  t.ok(turns >= 2, `the event loop turned while the rows went (${turns} turns): no one statement deletes them all`);
}

contract('prune: many stored responses go, in chunks, and the newer ones stay', async (t, db) => {
  const store = await withPluginStates(await db.open());
  const { key } = await newKey(store);
  const items = JSON.stringify({ input: [{ role: 'user', content: 'x'.repeat(200) }], output: [] });
  const saves = [];
  for (let i = 0; i < MANY; i++) saves.push(store.responses.save({ id: `resp_old_${i}`, keyId: key.id, previousId: null, createdAt: 1_000 + i, items }));
  for (let i = 0; i < 3; i++) saves.push(store.responses.save({ id: `resp_new_${i}`, keyId: key.id, previousId: null, createdAt: 10_000_000 + i, items }));
  await Promise.all(saves);

  const { result, turns } = await turnsDuring(() => store.responses.prune(5_000_000));
  t.equal(result, MANY, 'every older response went, and the count says so');
  checkTurns(t, db.backend, turns);
  t.equal((await store.responses.thread(key.id, 'resp_new_2', 0)).length, 1, 'a newer response stays');
  t.same(await store.responses.thread(key.id, `resp_old_${MANY - 1}`, 0), [], 'the last older one went too');
  t.equal(await store.responses.prune(5_000_000), 0, 'nothing is left to prune');
});

contract("prune: a key's many responses beyond its byte budget go, in chunks, and its newest stay", async (t, db) => {
  const store = await withPluginStates(await db.open());
  const { key } = await newKey(store);
  const items = 'x'.repeat(100);
  const id = (i: number): string => `resp_${String(i).padStart(5, '0')}`;
  // More than one chunk of the trim's walk is kept, so it goes on past its first statement, and
  // more than one chunk of deletes goes.
  const kept = TRIM_CHUNK_ROWS + 100;
  const stored = kept + MANY;
  const saves = [];
  for (let i = 0; i < stored; i++) saves.push(store.responses.save({ id: id(i), keyId: key.id, previousId: null, createdAt: 1_000 + i, items }));
  await Promise.all(saves);

  const { result, turns } = await turnsDuring(() => store.responses.trim(key.id, kept * items.length));
  t.equal(result, stored - kept, 'every response beyond the budget went, and the count says so');
  checkTurns(t, db.backend, turns);
  t.equal((await store.responses.thread(key.id, id(stored - kept), 0)).length, 1, 'the oldest within the budget stays');
  t.same(await store.responses.thread(key.id, id(stored - kept - 1), 0), [], 'the newest beyond it went');
  t.equal(await store.responses.trim(key.id, kept * items.length), 0, 'nothing is left beyond the budget');
  t.equal(await store.responses.trim(key.id, kept * items.length - 1), 1, 'one byte less: the oldest kept goes (the crossing found inside a chunk)');
});

contract("trim: a key's sizes are summed from the index by key alone, never from the rows (migration 21)", async (t, db) => {
  const store = await withPluginStates(await db.open());
  // Twenty keys of 200 responses: one key's are a twentieth of the table, as with many keys.
  const keys = [];
  for (let k = 0; k < 20; k++) keys.push((await newKey(store)).key);
  const [key, other] = keys as [KeyRecord, KeyRecord];
  const saves = [];
  for (let i = 0; i < 200; i++) {
    for (const k of keys)
      saves.push(store.responses.save({ id: `resp_${k.id}_${i}`, keyId: k.id, previousId: null, createdAt: 1_000 + i, items: 'x'.repeat(300) }));
  }
  await Promise.all(saves);
  if (db.backend === 'sqlite') {
    const literals = [`'${key.id}'`, String(Number.MAX_SAFE_INTEGER), "''"];
    const plan = (await db.query(`EXPLAIN QUERY PLAN ${TRIM_CHUNK_SQL.replace(/\?/g, () => literals.shift() as string)}`)).map((row) => String(row['detail']));
    t.ok(
      plan.some((line) => line.includes('USING COVERING INDEX responses_by_key')),
      `the index alone: ${plan.join(' | ')}`,
    );
  } else {
    // The planner picks an index-only scan by the table's size and visibility map (a large table
    // that autovacuum keeps, as measured in docs/notebook/performance-log.md): what holds at any size is that
    // the sums read a column the index carries.
    const [index] = await db.query("SELECT indexdef FROM pg_indexes WHERE indexname = 'responses_by_key'");
    t.match(String(index?.['indexdef']), /\(key_id, created_at, id\) INCLUDE \(bytes\)$/, 'the index by key carries the sizes');
    const [column] = await db.query("SELECT generation_expression FROM information_schema.columns WHERE table_name = 'responses' AND column_name = 'bytes'");
    t.equal(column?.['generation_expression'], 'octet_length(items)', "each response's size in bytes, kept by the server");
    t.match(TRIM_SIZES_SQL, /SUM\(bytes\)/, 'and the trim sums that column');
  }
  t.equal(await store.responses.trim(key.id, 300 * 150), 50, 'and the trim still keeps the newest within the budget');
  t.equal(await store.responses.trim(other.id, 300 * 200), 0, "another key's responses are its own");
});

contract('prune: many expired thought signatures go, in chunks, and the live ones stay', async (t, db) => {
  const store = await withPluginStates(await db.open());
  const { key } = await newKey(store);
  const expired = Array.from({ length: MANY }, (_, i) => ({ keyId: key.id, callId: `call_old_${i}`, signature: 'sig', deployment: null }));
  await store.signatures.put(expired, 2_000);
  await store.signatures.put([{ keyId: key.id, callId: 'call_live', signature: 'live', deployment: null }], 9_000_000);

  const { result, turns } = await turnsDuring(() => store.signatures.prune(3_000));
  t.equal(result, MANY);
  checkTurns(t, db.backend, turns);
  t.same([...(await store.signatures.get(key.id, ['call_live', 'call_old_0'], 3_000))], [['call_live', { signature: 'live', deployment: null }]]);
});

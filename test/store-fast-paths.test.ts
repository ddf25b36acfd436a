import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { hashSecret } from '../src/keys/key-material.js';
import { GroupCommit } from '../src/store/sqlite/group-commit.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';

function tempDir(t: { teardown(fn: () => unknown): void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-fast-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

t.test('group commit: one transaction per event-loop turn, each operation undone alone, settled after the commit', async (t) => {
  const path = join(tempDir(t), 'g.db');
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (v INTEGER NOT NULL)');
  const other = new Database(path, { readonly: true });
  t.teardown(() => {
    other.close();
    db.close();
  });
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const seenByOther = () => other.prepare('SELECT COUNT(*) FROM t').pluck().get() as number;
  const writes = new GroupCommit(db);

  let otherSawDuringSecond = -1;
  const first = writes.write(() => insert.run(1).changes);
  const second = writes.write(() => {
    otherSawDuringSecond = seenByOther();
    insert.run(2);
    throw new Error('second fails');
  });
  const third = writes.write(() => {
    insert.run(3);
    return 'third';
  });
  t.equal(seenByOther(), 0, 'nothing is written before the turn ends');
  t.equal(await first, 1);
  t.rejects(second, /second fails/);
  await second.catch(() => undefined);
  t.equal(await third, 'third');
  t.equal(otherSawDuringSecond, 0, 'the first write was not committed on its own: the turn shares one transaction');
  t.same(other.prepare('SELECT v FROM t ORDER BY v').pluck().all(), [1, 3], 'the failing operation was undone alone');
  t.equal(seenByOther(), 2, 'and the rest is committed by the time the promises settle');
});

t.test('key lookups: remembered for a second, forgotten at once on a change through the same store', async (t) => {
  const path = join(tempDir(t), 'k.db');
  const instanceA = SqliteStore.open(path);
  const instanceB = SqliteStore.open(path);
  t.teardown(async () => {
    await instanceA.close();
    await instanceB.close();
  });
  const valueHash = hashSecret('sl-example');
  const key = await instanceA.keys.create({ name: 'k', models: null, monthlyCeilingNanos: null, expiresAt: null, valueHash, display: 'sl-exam…mple', now: 1 });
  t.equal((await instanceA.keys.findByValueHash(valueHash))?.key.status, 'active');

  await instanceA.keys.revoke(key.id, 2);
  t.equal((await instanceA.keys.findByValueHash(valueHash))?.key.status, 'revoked', 'a change through this store is seen at once');

  await instanceA.keys.update(key.id, { name: 'renamed' }, 3);
  t.equal((await instanceB.keys.findByValueHash(valueHash))?.key.name, 'renamed');
  await instanceA.keys.update(key.id, { name: 'renamed again' }, 4);
  t.equal((await instanceB.keys.findByValueHash(valueHash))?.key.name, 'renamed', "another instance's change is not seen within the second…");
  await new Promise((resolve) => setTimeout(resolve, 1100));
  t.equal((await instanceB.keys.findByValueHash(valueHash))?.key.name, 'renamed again', '…but after it');
  t.equal(await instanceB.keys.findByValueHash(hashSecret('sl-unknown')), undefined);
});

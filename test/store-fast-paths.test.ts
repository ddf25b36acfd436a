import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { GroupCommit } from '../src/store/sqlite/group-commit.js';

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

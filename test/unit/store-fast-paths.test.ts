import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t from 'tap';
import { GroupCommit } from '../../src/store/sqlite/group-commit.js';

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
  await t.rejects(second, /second fails/);
  t.equal(await third, 'third');
  t.equal(otherSawDuringSecond, 0, 'the first write was not committed on its own: the turn shares one transaction');
  t.same(other.prepare('SELECT v FROM t ORDER BY v').pluck().all(), [1, 3], 'the failing operation was undone alone');
  t.equal(seenByOther(), 2, 'and the rest is committed by the time the promises settle');
});

t.test("group commit: no savepoint for a turn's lone operation nor for a one-statement one; a failing statement is still undone alone", async (t) => {
  const statements: string[] = [];
  const db = new Database(join(tempDir(t), 'g.db'), { verbose: (sql) => void statements.push(String(sql)) });
  t.teardown(() => db.close());
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE t (v INTEGER PRIMARY KEY)');
  const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
  const writes = new GroupCommit(db);
  const savepoints = (): number => statements.filter((sql) => sql.startsWith('SAVEPOINT')).length;

  statements.length = 0;
  t.equal(await writes.write(() => insert.run(1).changes), 1);
  t.same(statements, ['BEGIN IMMEDIATE', 'INSERT INTO t (v) VALUES (1.0)', 'COMMIT'], 'a lone operation: its transaction is its undo');
  await t.rejects(
    writes.write(() => insert.run(1)),
    /UNIQUE/,
    'a lone operation that fails is rejected',
  );

  statements.length = 0;
  const several = [
    writes.writeStatement(() => insert.run(2).changes),
    writes.writeStatement(() => insert.run(1).changes),
    writes.write(() => insert.run(3).changes + insert.run(4).changes),
  ];
  const outcomes = (await Promise.allSettled(several)).map((r) => (r.status === 'fulfilled' ? r.value : 'rejected'));
  t.same(outcomes, [1, 'rejected', 2], 'the duplicate statement failed, the others did not');
  t.equal(savepoints(), 1, 'only the operation of several statements had a savepoint');
  t.same(db.prepare('SELECT v FROM t ORDER BY v').pluck().all(), [1, 2, 3, 4], 'the failed statement was undone alone, the rest committed');
});

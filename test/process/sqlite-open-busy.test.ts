import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import t, { type Test } from 'tap';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

/**
 * Two processes opening a new file together: one switches it to WAL while the other already
 * reads it, and SQLite answers the reader SQLITE_BUSY at once, without its busy handler. The
 * open waits for the lock as a statement would (busy_timeout), instead of failing the start.
 */

const dir = mkdtempSync(join(tmpdir(), 'gateway-busy-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** Another process writing the file in rollback mode, holding its write lock for `holdMs`. */
async function holdWriteLock(t: Test, file: string, holdMs: number): Promise<void> {
  const script = `
    const Database = require('better-sqlite3');
    const db = new Database(process.argv[1]);
    db.exec('BEGIN IMMEDIATE; CREATE TABLE IF NOT EXISTS other (x)');
    process.stdout.write('locked\\n');
    setTimeout(() => { db.exec('COMMIT'); db.close(); }, Number(process.argv[2]));`;
  const child = spawn(process.execPath, ['-e', script, file, String(holdMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => void child.kill('SIGKILL'));
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the lock holder exited with ${code}`)));
  });
}

t.test('the premise: switching to WAL under another process lock fails at once, busy_timeout or not', async (t) => {
  const file = join(dir, 'premise.db');
  await holdWriteLock(t, file, 2000);
  const db = new Database(file, { timeout: 5000 });
  t.teardown(() => db.close());
  const started = Date.now();
  t.throws(() => db.pragma('journal_mode = WAL'), { code: 'SQLITE_BUSY' });
  t.ok(Date.now() - started < 1000, 'the busy handler was not called');
});

t.test('the open waits for the other process and switches the file to WAL', async (t) => {
  const file = join(dir, 'waits.db');
  await holdWriteLock(t, file, 300);
  const store = SqliteStore.open(file, { busyTimeoutMs: 5000 });
  t.teardown(() => store.close());
  await store.checkWritable();
  const db = new Database(file, { readonly: true });
  t.teardown(() => db.close());
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  t.ok(db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'other'").get(), "the other process's write is kept");
});

t.test('a lock held past busy_timeout still fails the open, as SQLITE_BUSY', async (t) => {
  const file = join(dir, 'gives-up.db');
  await holdWriteLock(t, file, 5000);
  const started = Date.now();
  t.throws(() => SqliteStore.open(file, { busyTimeoutMs: 200 }), { code: 'SQLITE_BUSY' });
  t.ok(Date.now() - started >= 200, 'it waited busy_timeout first');
});

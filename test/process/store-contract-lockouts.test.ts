import { contract } from '../helpers/store-backends.js';

/**
 * The store contract, part 9: failed admin-token attempts per client address (LockoutStore,
 * src/store/limits.ts), counted by every instance into one window — on SQLite and PostgreSQL.
 */

const MINUTE = 60_000;

contract('lockouts: a window opens at a failure, counts for a minute, then starts afresh; the lockout is noted once per window', async (t, db) => {
  const store = await db.open();
  t.equal(await store.lockouts.current('198.51.100.7', 1_000, MINUTE), undefined, 'no failure, no window');
  t.same(await store.lockouts.fail('198.51.100.7', 1_000, MINUTE), { start: 1_000, failures: 1 });
  t.same(await store.lockouts.fail('198.51.100.7', 30_000, MINUTE), { start: 1_000, failures: 2 });
  t.same(await store.lockouts.fail('203.0.113.9', 30_000, MINUTE), { start: 30_000, failures: 1 }, 'addresses apart');
  t.same(await store.lockouts.current('198.51.100.7', 60_999, MINUTE), { start: 1_000, failures: 2 });
  t.equal(await store.lockouts.noteLockout('198.51.100.7', 40_000, MINUTE), true, 'the first note of the window');
  t.equal(await store.lockouts.noteLockout('198.51.100.7', 50_000, MINUTE), false, 'not twice');
  t.equal(await store.lockouts.current('198.51.100.7', 61_000, MINUTE), undefined, 'the window closed at 61 000');
  t.equal(await store.lockouts.noteLockout('198.51.100.7', 61_000, MINUTE), false, 'nothing to note without an open window');
  t.same(await store.lockouts.fail('198.51.100.7', 61_000, MINUTE), { start: 61_000, failures: 1 }, 'a new window');
  t.equal(await store.lockouts.noteLockout('198.51.100.7', 61_001, MINUTE), true, 'its lockout is noted afresh');
  t.equal(await store.lockouts.prune(61_000), 1, "the other address's old window is forgotten");
  t.equal(await store.lockouts.current('203.0.113.9', 61_000, MINUTE), undefined);
});

contract('lockouts: 2×15 failures of one address at once from two stores are all counted, and the lockout noted once', async (t, db) => {
  const stores = [await db.open(), await db.open()] as const;
  const windows = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 2 === 0 ? 0 : 1].lockouts.fail('198.51.100.7', 1_000 + i, MINUTE)));
  t.same(
    windows.map((w) => w.failures).sort((a, b) => a - b),
    Array.from({ length: 30 }, (_, i) => i + 1),
    'each failure counted once, in order',
  );
  t.ok(
    windows.every((w) => w.start === windows.find((x) => x.failures === 1)?.start),
    'all in one window',
  );
  const notes = await Promise.all(Array.from({ length: 10 }, (_, i) => stores[i % 2 === 0 ? 0 : 1].lockouts.noteLockout('198.51.100.7', 2_000, MINUTE)));
  t.equal(notes.filter(Boolean).length, 1, 'one note');
});

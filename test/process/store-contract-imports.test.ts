import type { ImportedUsageRow } from '../../src/store/store.js';
import { contract } from '../helpers/store-backends.js';

/** The store contract, part 5: ImportStore and AuditStore — on SQLite and PostgreSQL. */

const row = (day: string, modelRaw: string, fields: Partial<ImportedUsageRow> = {}): ImportedUsageRow => ({
  day,
  modelRaw,
  modelId: null,
  inputTokens: 10,
  outputTokens: 20,
  costNanos: 30,
  ...fields,
});
const FINGERPRINT = 'a'.repeat(64);
const input = (fields: Partial<{ label: string; now: number; last4: string; fingerprint: string }> = {}) => ({
  kind: 'sk-' as const,
  fingerprint: FINGERPRINT,
  last4: 'wxyz',
  label: 'vendor key',
  now: 100,
  ...fields,
});

contract('imports: upsert creates, then updates the label and replaces the history; null keeps it', async (t, db) => {
  const store = await db.open();
  const history = [
    row('2026-11-02', 'gpt-x', { modelId: 'gamma-5.4', costNanos: 9_007_199_254_740_991 }),
    row('2026-11-01', 'weird/model'),
    row('2026-11-01', 'Another'),
  ];
  const made = await store.imports.upsert(input(), history);
  t.equal(made.created, true);
  t.match(made.key.id, /^imp_[A-Za-z0-9]{16}$/);
  t.same(made.key, { id: made.key.id, kind: 'sk-', fingerprint: FINGERPRINT, last4: 'wxyz', label: 'vendor key', createdAt: 100, updatedAt: 100 });
  t.same(await store.imports.history(made.key.id), [history[2], history[1], history[0]], 'by day, then model as written (byte order)');

  const again = await store.imports.upsert(input({ label: 'renamed', now: 200, last4: 'zzzz' }), null);
  t.equal(again.created, false);
  t.same(again.key, { ...made.key, label: 'renamed', updatedAt: 200 }, 'same id, kind and last4; new label');
  t.equal((await store.imports.history(made.key.id)).length, 3, 'no rows given: the history stays');

  await store.imports.upsert(input({ now: 300 }), [row('2026-12-01', 'only')]);
  t.same(await store.imports.history(made.key.id), [row('2026-12-01', 'only')], 'rows given: the history is replaced');
  await store.imports.upsert(input({ now: 400 }), []);
  t.same(await store.imports.history(made.key.id), [], 'an empty upload empties it');
});

contract('imports: list oldest first, get, remove (with its history)', async (t, db) => {
  const store = await db.open();
  const b = (await store.imports.upsert(input({ fingerprint: 'b'.repeat(64), now: 2 }), [row('2026-11-01', 'm')])).key;
  const a = (await store.imports.upsert(input({ fingerprint: 'c'.repeat(64), now: 1 }), null)).key;
  t.same(
    (await store.imports.list()).map((k) => k.id),
    [a.id, b.id],
  );
  t.same(await store.imports.get(b.id), b);
  t.equal(await store.imports.get('imp_nope'), undefined);
  t.equal(await store.imports.remove(b.id), true);
  t.equal(await store.imports.remove(b.id), false);
  t.same(await store.imports.history(b.id), []);
  t.same(
    (await store.imports.list()).map((k) => k.id),
    [a.id],
  );
});

contract('imports: all or nothing — a failing row leaves neither a new import nor a changed one', async (t, db) => {
  const store = await db.open();
  // A day of NULL breaks the NOT NULL column, the last row of the batch.
  const broken = [row('2026-11-01', 'fine'), row(null as unknown as string, 'bad')];
  await t.rejects(store.imports.upsert(input(), broken));
  t.same(await store.imports.list(), [], 'no import without its history');

  const kept = await store.imports.upsert(input(), [row('2026-11-01', 'kept')]);
  await t.rejects(store.imports.upsert(input({ label: 'changed', now: 999 }), broken));
  t.same(await store.imports.get(kept.key.id), kept.key, 'label and time unchanged');
  t.same(await store.imports.history(kept.key.id), [row('2026-11-01', 'kept')], 'history unchanged');
});

contract('audit: entries newest first, up to a limit', async (t, db) => {
  const store = await db.open();
  t.same(await store.audit.list(10), []);
  await store.audit.record({ at: 1, actor: 'fp1', action: 'POST /keys', target: 'key_a', status: 201 });
  await store.audit.record({ at: 2, actor: 'unauthenticated', action: 'GET /keys', target: null, status: 401 });
  await store.audit.record({ at: 2, actor: 'fp1', action: 'POST /keys/key_a/revoke', target: 'key_a', status: 200 });
  const all = await store.audit.list(10);
  t.same(
    all.map((e) => e.action),
    ['POST /keys/key_a/revoke', 'GET /keys', 'POST /keys'],
  );
  t.same(all[1], { id: all[1]?.id, at: 2, actor: 'unauthenticated', action: 'GET /keys', target: null, status: 401 });
  t.equal(typeof all[0]?.id, 'number');
  t.ok((all[0]?.id ?? 0) > (all[1]?.id ?? 0), 'ids grow');
  t.same(
    (await store.audit.list(2)).map((e) => e.action),
    ['POST /keys/key_a/revoke', 'GET /keys'],
  );
});

contract('audit: pruning keeps what is newer than a date and at most the newest N rows', async (t, db) => {
  const store = await db.open();
  for (let at = 1; at <= 6; at++) await store.audit.record({ at, actor: 'fp1', action: `POST /keys/${at}`, target: null, status: 201 });
  t.equal(await store.audit.prune(3, 100), 2, 'rows before the date go');
  t.same(
    (await store.audit.list(10)).map((e) => e.at),
    [6, 5, 4, 3],
  );
  t.equal(await store.audit.prune(0, 2), 2, 'then all but the newest two');
  t.same(
    (await store.audit.list(10)).map((e) => e.at),
    [6, 5],
  );
  t.equal(await store.audit.prune(0, 10), 0, 'nothing to do');
});

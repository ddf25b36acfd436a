import Database from 'better-sqlite3';
import express from 'express';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import t from 'tap';
import { ADMIN_FAILURES_PER_WINDOW } from '../../src/admin/admin-auth.js';
import { auditTrail, MAX_ACTION_CHARS } from '../../src/admin/audit.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import { FakeClock, startHarness } from '../helpers/harness.js';

/**
 * Refused admin calls cannot fill the disk: the action stored is bounded, the attempts a
 * lockout refuses leave one row per address and window, and the table is pruned by age and
 * row count.
 */

const MIB = 1024 * 1024;
/** Enough refused requests that keeping each one's path (16 KB) would grow the file several MiB past the bound below. */
const REQUESTS = 400;
const fileSize = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

t.test('400 tokenless POSTs with a 16 KB path (6.4 MB of paths): a bounded number of short rows, the file barely grows', async (t) => {
  const h = await startHarness(t);
  const db = new Database(h.dbPath, { readonly: true, fileMustExist: true });
  t.teardown(() => db.close());
  const rowCount = (): number => db.prepare('SELECT COUNT(*) FROM audit_log').pluck().get() as number;
  const onDisk = (): number => fileSize(h.dbPath) + fileSize(`${h.dbPath}-wal`);
  const rowsBefore = rowCount();
  const bytesBefore = onDisk();

  // The request line must stay under Node's 16 KiB header limit.
  const path = `/admin/v1/keys/${'k'.repeat(16_000 - '/admin/v1/keys/'.length)}`;
  const statuses = new Map<number, number>();
  let sent = 0;
  const deadline = Date.now() + 60_000;
  const worker = async (): Promise<void> => {
    while (sent < REQUESTS && Date.now() < deadline) {
      sent += 1;
      const res = await fetch(`${h.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      await res.arrayBuffer();
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    }
  };
  const started = Date.now();
  await Promise.all(Array.from({ length: 20 }, worker));
  const elapsed = Date.now() - started;
  await new Promise((resolve) => setTimeout(resolve, 200));

  t.equal(sent, REQUESTS, 'all sent');
  t.ok(
    (statuses.get(401) ?? 0) >= ADMIN_FAILURES_PER_WINDOW && (statuses.get(429) ?? 0) > REQUESTS - 2 * (ADMIN_FAILURES_PER_WINDOW + 1),
    `refused: ${JSON.stringify([...statuses])}`,
  );
  const added = rowCount() - rowsBefore;
  const grown = onDisk() - bytesBefore;
  t.comment(`${added} audit rows, database + WAL grew ${(grown / 1024).toFixed(0)} KiB, in ${elapsed} ms`);
  // Per lockout window: the wrong tokens before it and the first attempt it refused. The run may span two windows.
  t.ok(added <= 2 * (ADMIN_FAILURES_PER_WINDOW + 1), `${added} rows`);
  t.ok(grown < 1 * MIB, `the file grew ${(grown / 1024).toFixed(0)} KiB, less than 1 MiB`);

  const rows = db.prepare('SELECT action, target, status FROM audit_log ORDER BY id DESC LIMIT ?').all(added) as Array<{
    action: string;
    target: string;
    status: number;
  }>;
  t.ok(
    rows.every((row) => row.action.length < MAX_ACTION_CHARS + 150 && row.target.length <= 64),
    'every action and target is short',
  );
  t.match(rows.at(-1)?.action, /^POST \/keys\/k+… \(truncated from 1599\d characters\)$/, 'a long path is cut and marked');
  const lockouts = rows.filter((row) => row.status === 429);
  t.ok(lockouts.length >= 1 && lockouts.length <= 2, 'the lockout is one row per window');
  t.match(lockouts[0]?.action, /\(locked out: \S+ presented 10 wrong tokens; its further attempts for \d+ s are not recorded\)$/);
});

t.test('prune: by age and to the newest N rows', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-prune-'));
  const store = SqliteStore.open(join(dir, 'gateway.db'));
  t.teardown(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  for (let at = 1; at <= 12; at++) await store.audit.record({ at: at * 1000, actor: 'token:x', action: `POST /keys/${at}`, target: String(at), status: 200 });
  t.equal(await store.audit.prune(0, 100), 0, 'nothing old, nothing over the count: nothing goes');
  t.equal(await store.audit.prune(3500, 100), 3, 'the three recorded before 3.5 s go');
  t.equal(await store.audit.prune(0, 5), 4, 'then all but the 5 newest');
  t.same(
    (await store.audit.list(100)).map((entry) => entry.target),
    ['12', '11', '10', '9', '8'],
  );
  t.equal(await store.audit.prune(0, 0), 5, 'keeping none empties it');
});

t.test('the audit trail prunes itself at most once a minute, after a response', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'audit-trail-'));
  const store = SqliteStore.open(join(dir, 'gateway.db'));
  const clock = new FakeClock();
  const app = express();
  app.use(auditTrail(store.audit, clock, pino({ level: 'silent' }), { maxAgeMs: 24 * 3600_000, maxRows: 3 }));
  app.post('/keys', (_req, res) => void res.status(201).end());
  const server: Server = await new Promise((resolve) => {
    const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
  });
  t.teardown(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const post = async (): Promise<void> => {
    await (await fetch(`${origin}/keys`, { method: 'POST' })).arrayBuffer();
    await new Promise((resolve) => setTimeout(resolve, 20));
  };
  const count = async (): Promise<number> => (await store.audit.list(1000)).length;

  for (let i = 0; i < 6; i++) await post();
  t.equal(await count(), 6, 'pruned after the first record only: within the minute the table may exceed the bound');
  clock.advance(61_000);
  await post();
  t.equal(await count(), 3, 'a minute later the next record prunes it to the newest 3');
  clock.advance(25 * 3600_000);
  await post();
  t.equal(await count(), 1, 'and rows older than the age bound go');
});

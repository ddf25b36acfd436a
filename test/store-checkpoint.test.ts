import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { hashSecret } from '../src/keys/key-material.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';

t.test('WAL checkpoints happen in the background worker, not in a commit', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-checkpoint-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'gateway.db');
  const store = SqliteStore.open(path);
  t.teardown(() => store.close());
  const key = await store.keys.create({
    name: 'k', models: null, monthlyCeilingNanos: null, expiresAt: null, valueHash: hashSecret('v'), display: 'sl-…', now: 0,
  });
  const before = statSync(path).size;
  for (let i = 0; i < 3000; i++) {
    await store.ledger.record({
      admittedAt: i, cycle: '2026-11', keyId: key.id, model: 'gamma-5.4', family: 'gamma', endpoint: 'chat.completions', stream: false,
      status: 200, outcome: 'ok', attempts: 1, promptTokens: 1, completionTokens: 1, usageEstimated: false, chargedNanos: 1,
      listNanos: 2, upstreamMs: 1, ttftMs: null,
    }, null);
  }
  t.equal(statSync(path).size, before, 'the commits only appended to the WAL (far below the backstop threshold)');
  const deadline = Date.now() + 5000;
  while (statSync(path).size === before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  t.ok(statSync(path).size > before, 'the worker copied the WAL into the database file on its own');
  await store.close();
  t.equal(statSync(`${path}-wal`, { throwIfNoEntry: false }), undefined, 'closing the last connection removes the WAL');
});

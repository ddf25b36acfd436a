import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { hashSecret } from '../../src/keys/key-material.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';

t.test('WAL checkpoints happen in the background worker, not in a commit', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-checkpoint-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const path = join(dir, 'gateway.db');
  // The worker's first checkpoint comes only after the commits, however slow the machine: any
  // growth of the database file during them would be a commit checkpointing inline.
  const store = SqliteStore.open(path, { checkpointIntervalMs: 60_000 });
  t.teardown(() => store.close());
  const key = await store.keys.create({
    name: 'k',
    models: null,
    monthlyCeilingNanos: null,
    expiresAt: null,
    valueHash: hashSecret('v'),
    display: 'sl-…',
    now: 0,
  });
  const before = statSync(path).size;
  for (let i = 0; i < 3000; i++) {
    await store.ledger.record(
      {
        admittedAt: i,
        cycle: '2026-11',
        keyId: key.id,
        model: 'gamma-5.4',
        family: 'gamma',
        endpoint: 'chat.completions',
        stream: false,
        status: 200,
        outcome: 'ok',
        attempts: 1,
        promptTokens: 1,
        completionTokens: 1,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
        reasoningTokens: 0,
        usageEstimated: false,
        chargedNanos: 1,
        listNanos: 2,
        upstreamMs: 1,
        ttftMs: null,
        cached: false,
        deployment: null,
      },
      null,
    );
  }
  t.equal(statSync(path).size, before, 'the commits only appended to the WAL (far below the backstop threshold)');
  await store.close();
  t.equal(statSync(`${path}-wal`, { throwIfNoEntry: false }), undefined, 'closing the last connection removes the WAL');

  // Reopened with the default interval: the worker checkpoints without any commit to drive it.
  const again = SqliteStore.open(path);
  t.teardown(() => again.close());
  const size = statSync(path).size;
  for (let i = 0; i < 50; i++) await again.settings.set(`s${i}`, 'x'.repeat(4000));
  const grown = statSync(path).size;
  const deadline = Date.now() + 5000;
  while (statSync(path).size === grown && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  t.ok(statSync(path).size > size, 'the worker copied the WAL into the database file on its own');
});

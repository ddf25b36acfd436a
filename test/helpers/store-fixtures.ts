import { hashSecret } from '../../src/keys/key-material.js';
import type { CycleSpend, KeyRecord, LedgerRow, NewKey, Store } from '../../src/store/store.js';

/** Small builders for the store contract tests. */

let values = 0;

/** A key with a fresh value (`sl-test-<n>`); returns the record and the value's hash. */
export async function newKey(store: Store, settings: Partial<NewKey> = {}): Promise<{ key: KeyRecord; hash: Buffer }> {
  const hash = hashSecret(`sl-test-${++values}-${Math.random()}`);
  const key = await store.keys.create({
    name: 'k',
    models: null,
    monthlyCeilingNanos: null,
    expiresAt: null,
    valueHash: hash,
    display: 'sl-test…test',
    now: 1_000,
    ...settings,
  });
  return { key, hash: settings.valueHash ?? hash };
}

export const ledgerRow = (keyId: string, row: Partial<LedgerRow> = {}): LedgerRow => ({
  admittedAt: Date.parse('2026-11-15T12:00:00Z'),
  cycle: '2026-11',
  keyId,
  model: 'gamma-5.4',
  family: 'gamma',
  endpoint: 'chat.completions',
  stream: false,
  status: 200,
  outcome: 'ok',
  attempts: 1,
  promptTokens: 3,
  completionTokens: 4,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  cacheWrite1hTokens: 0,
  reasoningTokens: 0,
  usageEstimated: false,
  chargedNanos: 10_000,
  listNanos: 20_000,
  upstreamMs: 12.5,
  ttftMs: null,
  cached: false,
  deployment: null,
  ...row,
});

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A cycle's figures: charged spent and held, upstream spent and held (0 unless given). */
export const figures = (spent: number, reserved: number, upstreamSpent = 0, upstreamReserved = 0): CycleSpend => ({
  spent,
  reserved,
  upstreamSpent,
  upstreamReserved,
});

/**
 * What the money path costs. Run: `node --import @tapjs/typescript/import bench/ledger.ts`
 *
 * 1. The store alone: one reserve + one record (row, spend, release) per call, on a WAL file
 *    with synchronous=NORMAL — the two transactions a call with a ceiling adds.
 * 2. End to end: the same non-streamed calls through the gateway with and without the
 *    ceiling and ledger plugins, against the gamma simulator.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { hashSecret } from '../src/keys/key-material.js';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.js';
import { chatBody, startHarness } from '../test/helpers/harness.js';

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
const summary = (micros: number[]): string => {
  const sorted = [...micros].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 0.5).toFixed(1)} µs, p99 ${percentile(sorted, 0.99).toFixed(1)} µs`;
};

async function storeOnly(calls: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'gateway-bench-'));
  const store = SqliteStore.open(join(dir, 'gateway.db'));
  const key = await store.keys.create({
    name: 'bench',
    models: null,
    monthlyCeilingNanos: 10 ** 15,
    expiresAt: null,
    valueHash: hashSecret('bench'),
    display: 'sl-…',
    now: 0,
  });
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    const result = await store.ledger.reserve({
      keyId: key.id,
      cycle: '2026-11',
      nanos: 10_000,
      upstreamNanos: 20_000,
      ceilingNanos: 10 ** 15,
      upstreamLimitNanos: null,
      instance: 'bench',
      now: i,
      expiresAt: i + 120_000,
    });
    if (!result.admitted) throw new Error('refused');
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
        promptTokens: 3,
        completionTokens: 4,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
        reasoningTokens: 0,
        usageEstimated: false,
        chargedNanos: 10_000,
        listNanos: 20_000,
        upstreamMs: 1,
        ttftMs: null,
        cached: false,
        deployment: null,
      },
      result.reservation.id,
    );
    times.push((performance.now() - t0) * 1000);
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(`store: ${calls} × (reserve + record) in ${seconds.toFixed(2)} s = ${Math.round(calls / seconds)} calls/s; ${summary(times)}`);
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}

async function endToEnd(label: string, plugins: string[] | null, calls: number, concurrency: number): Promise<void> {
  const teardowns: Array<() => unknown> = [];
  const h = await startHarness(
    { teardown: (fn) => teardowns.push(fn) },
    { env: { LOG_LEVEL: 'warn' }, ...(plugins ? { plugins: plugins.map((name) => ({ name, enabled: true, config: {} })) } : {}) },
  );
  const { key } = await h.createKey({ monthly_ceiling_usd: '1000.00' });
  const body = chatBody('gamma-5.4', { max_tokens: 4 });
  const send = async (): Promise<number> => {
    const t0 = performance.now();
    const res = await fetch(`${h.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body,
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    return (performance.now() - t0) * 1000;
  };
  for (let i = 0; i < 200; i++) await send(); // warm up
  const times: number[] = [];
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < calls) {
        next += 1;
        times.push(await send());
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  console.log(`${label}: ${calls} calls, ${concurrency} at a time: ${Math.round(calls / seconds)} calls/s; ${summary(times)}`);
  for (const fn of teardowns.reverse()) await fn();
}

await storeOnly(20_000);
const withoutMoney = ['auth', 'model-normalise', 'scope', 'vendor-gamma'];
await endToEnd('gateway without ceiling/ledger', withoutMoney, 3000, 16);
await endToEnd('gateway with ceiling + ledger  ', null, 3000, 16);

import { performance } from 'node:perf_hooks';
import t, { type Test } from 'tap';
import { UNICODE_WORDS } from '../../src/simulators/reply-plan.js';
import type { SimServer } from '../../src/simulators/sim-server.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { openLedgerDb, type LedgerDb } from '../helpers/ledger-db.js';
import { pluginConfig } from '../helpers/ops.js';
import { FAULT_CASES, RETRIES, type Expect, type FaultCase, type Mode, type Words } from './helpers/fault-cases.js';
import { readChat, STATUS_OF_TYPE } from './helpers/replies.js';
import { scaled } from './helpers/scale.js';

/**
 * Every upstream fault of the matrix (helpers/fault-cases.ts) × family × {streamed, plain},
 * through the real gateway: the caller gets a whole, correct reply or our error (a JSON
 * envelope, or a stream's last frame without `[DONE]`) with the mapped status, never later than
 * the timeouts allow; the ledger row says how the call ended and how many attempts it took.
 * The families run side by side, each on its own simulator's fault queue.
 */

const UPSTREAM_MS = 1500;
const IDLE_MS = 400;
/** The deadline, one silent body per attempt, and slack for a loaded machine: no call may take longer. */
const BOUND_MS = UPSTREAM_MS + (RETRIES + 1) * IDLE_MS + 2500;
const ROUNDS = scaled(1, 5);

const MODELS = { alpha: 'alpha-sonnet-4.6', beta: 'beta-3-flash', gamma: 'gamma-5.4' } as const;
type Family = keyof typeof MODELS;
const PROMPTS: Record<Words, { prompt: string; text: string }> = {
  plain: { prompt: 'Hi [[sim:tokens=6]]', text: 'Hello from the simulated upstream; this' },
  unicode: { prompt: 'Hi [[sim:unicode=1]] [[sim:tokens=12]]', text: UNICODE_WORDS.slice(0, 12).join(' ') },
};

interface Sent {
  label: string;
  expect: Expect;
}

type T = Test;

/** One call with its faults queued; checks what the caller got. */
async function drive(t: T, h: Harness, sim: SimServer, key: string, family: Family, mode: Mode, fault: FaultCase): Promise<Sent> {
  const label = `${family}, ${mode}, ${fault.name}`;
  const expect = fault.expect[mode];
  const { prompt, text: expectedText } = PROMPTS[fault.words];
  sim.faults.length = 0;
  sim.faults.push(...fault.faults);
  const started = performance.now();
  const res = await fetch(`${h.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: MODELS[family], stream: mode === 'streamed', messages: [{ role: 'user', content: prompt }] }),
    signal: AbortSignal.timeout(BOUND_MS),
  });
  const text = await res.text();
  const elapsed = performance.now() - started;
  sim.faults.length = 0;
  t.ok(elapsed < BOUND_MS, `${label}: answered in ${elapsed.toFixed(0)} ms`);
  const reading = readChat(res.status, text, mode === 'streamed');
  if (expect.kind === 'reply') {
    t.equal(res.status, 200, `${label}: 200`);
    t.ok(reading.looksWhole && reading.wellFormed, `${label}: a whole, well-formed reply`);
    t.equal(reading.content, expectedText, `${label}: the exact text`);
    t.equal(reading.finishReason, 'stop', `${label}: finished`);
    return { label, expect };
  }
  t.notOk(reading.looksWhole, `${label}: does not look whole (no [DONE], not a 200)`);
  if (!t.ok(reading.error, `${label}: ends with our envelope`)) t.comment(text.slice(-600));
  const type = reading.error?.error.type ?? '';
  t.equal(res.status === 200 ? STATUS_OF_TYPE[type] : res.status, expect.status, `${label}: ${expect.status} (${type})`);
  t.ok(reading.wellFormed || res.status !== 200, `${label}: every frame before the error is a chunk`);
  if (expect.retryAfter) t.equal(res.headers.get('retry-after'), expect.retryAfter, `${label}: Retry-After`);
  return { label, expect };
}

async function family(t: T, h: Harness, db: LedgerDb, family: Family): Promise<void> {
  const sim = h[family];
  const { id, key } = await h.createKey({ name: `faults ${family}` });
  const sent: Sent[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of ['streamed', 'plain'] as const) {
      for (const fault of FAULT_CASES) {
        if (!fault.modes || fault.modes.includes(mode)) sent.push(await drive(t, h, sim, key, family, mode, fault));
      }
    }
  }
  const rows = db.rows(id);
  t.equal(rows.length, sent.length, `${family}: one ledger row per call`);
  for (const [index, { label, expect }] of sent.entries()) {
    const row = rows[index];
    t.equal(row?.outcome, expect.kind === 'reply' ? 'ok' : expect.outcome, `${label}: ledger outcome`);
    t.equal(row?.attempts, expect.attempts, `${label}: ${expect.attempts} upstream attempt(s)`);
  }
  // Every stalled or hanging upstream request was ended by the gateway.
  for (let i = 0; i < 40 && sim.openRequests > 0; i++) await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(sim.openRequests, 0, `${family}: no upstream request left open`);
}

t.test('upstream faults × family × streamed/plain: a whole reply or our error, within the timeouts', async (t) => {
  const h = await startHarness(t, {
    env: { GATEWAY_UPSTREAM_TIMEOUT_MS: String(UPSTREAM_MS), GATEWAY_STREAM_IDLE_TIMEOUT_MS: String(IDLE_MS), GATEWAY_RETRY_MAX: String(RETRIES) },
    configure: pluginConfig('retry', { cadence: [{ delay_ms: 50, jitter_ms: 0 }], min_attempt_ms: 100 }),
  });
  const db = openLedgerDb(h.dbPath);
  t.teardown(() => db.close());
  await Promise.all((Object.keys(MODELS) as Family[]).map((name) => family(t, h, db, name)));
  const health = await fetch(`${h.origin}/healthz`);
  t.equal(health.status, 200, 'the gateway is alive');
});

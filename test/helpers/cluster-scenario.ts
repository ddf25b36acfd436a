import { setTimeout as sleep } from 'node:timers/promises';
import type { Test } from 'tap';
import { adminAlone, alone, chatAlone, waitForLog, workerPids, type Answer, type LogLine } from './cluster.js';
import { gatewayProcesses } from './gateway-processes.js';
import { parseMetrics } from './ops.js';

/**
 * GATEWAY_WORKERS=2 from start to stop on one database (`database`: the env that selects it):
 * both workers serve, /metrics is the group's sum whichever worker takes the scrape, a worker
 * killed with SIGKILL is replaced under its instance id (which releases what it held) while the
 * other keeps answering, and SIGTERM drains both.
 */

const RELEASED = 'released spend reservations left by an earlier run of this instance';
const isChat = (line: LogLine): boolean => line.msg === 'request' && line['path'] === '/v1/chat/completions';
const REQUESTS_OK = 'gateway_requests_total{model="gamma-5.4",family="gamma",endpoint="chat.completions",status_class="2xx"}';

/** Calls on connections of their own, `gapMs` apart, so that the primary hands them to the workers in turn. */
function staggered(count: number, gapMs: number, call: () => Promise<Answer>): Promise<Answer[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      await sleep(i * gapMs);
      return call().catch(() => ({ status: 0, text: 'connection lost' }));
    }),
  );
}

const perWorker = (lines: LogLine[]): Map<number, number> => {
  const counts = new Map<number, number>();
  for (const line of lines.filter(isChat)) counts.set(line.worker ?? 0, (counts.get(line.worker ?? 0) ?? 0) + 1);
  return counts;
};

export async function twoWorkers(t: Test, database: Record<string, string>): Promise<void> {
  const { start } = await gatewayProcesses(t, 0);
  const gateway = start({ GATEWAY_WORKERS: '2', ...database });
  const origin = await gateway.ready;
  let lines = await waitForLog(gateway, 'both workers listening', (l) => workerPids(l).size === 2);
  const pids = workerPids(lines);
  t.equal(new Set(pids.values()).size, 2, 'two worker processes');
  t.same(
    lines
      .filter((l) => l.msg === 'worker listening')
      .map((l) => l['instance'])
      .sort(),
    ['default-w1', 'default-w2'],
    'an instance id per slot',
  );

  const { id, key } = (await adminAlone(origin, 'POST', '/keys', { name: 'cluster', monthly_ceiling_usd: '100.00' })) as { id: string; key: string };
  const calls = 12;
  const answers = await staggered(calls, 0, () => chatAlone(origin, key, 'hi'));
  t.same(
    answers.map((a) => a.status),
    Array(calls).fill(200),
  );
  lines = await waitForLog(gateway, 'every call logged', (l) => l.filter(isChat).length === calls);
  const served = perWorker(lines);
  t.ok((served.get(1) ?? 0) > 0 && (served.get(2) ?? 0) > 0, `both workers answered calls (${JSON.stringify([...served])})`);

  for (let i = 0; i < 4; i++) {
    const scrape = await alone(`${origin}/metrics`);
    t.equal(scrape.status, 200);
    t.equal(parseMetrics(scrape.text).get(REQUESTS_OK), calls, 'the sum of both workers, whichever took the scrape');
  }
  lines = await waitForLog(gateway, 'the scrapes logged', (l) => l.filter((x) => x['path'] === '/metrics').length === 4);
  t.equal(new Set(lines.filter((l) => l['path'] === '/metrics').map((l) => l.worker)).size, 2, 'both workers took scrapes');

  // SIGKILL a worker while both hold reservations of slow calls.
  const slow = staggered(6, 150, () => chatAlone(origin, key, 'slow [[sim:delay_ms=4000]]'));
  await sleep(6 * 150 + 500);
  const killed = pids.get(1) as number;
  process.kill(killed, 'SIGKILL');
  // A connection the primary hands to a worker in the instant it dies is lost with it (node:cluster's
  // round robin): callers would retry. Once the primary has seen the death, every call is answered.
  lines = await waitForLog(gateway, 'the death of worker 1', (l) => l.some((x) => x.msg.startsWith('worker died')));
  t.ok(
    lines.find((l) => l.msg.startsWith('worker died') && l.worker === 1 && l.signal === 'SIGKILL' && l['level'] === 50),
    'the death is logged at error',
  );
  const meanwhile = await staggered(4, 0, () => chatAlone(origin, key, 'hi'));
  t.same(
    meanwhile.map((a) => a.status),
    [200, 200, 200, 200],
    'the other worker keeps answering',
  );
  lines = await waitForLog(gateway, 'worker 1 replaced', (l) => (workerPids(l).get(1) ?? killed) !== killed && l.some((x) => x.msg === RELEASED));
  const released = lines.find((l) => l.msg === RELEASED);
  t.equal(released?.['instance'], 'default-w1', 'the replacement runs under the same instance id');
  const lost = (await slow).filter((a) => a.status !== 200).length;
  t.ok(lost > 0, 'the killed worker held some of the slow calls');
  t.equal(released?.['released'], lost, 'and the replacement released exactly their reservations at start');
  const usage = (await adminAlone(origin, 'GET', `/keys/${id}/usage`)) as { cycle: { reserved_usd: string } };
  t.equal(usage.cycle.reserved_usd, '0.00', 'nothing stays held');
  // The dead worker's calls, as last scraped, stay in the group's counters: they never go down.
  const after = parseMetrics((await alone(`${origin}/metrics`)).text).get(REQUESTS_OK);
  t.equal(after, calls + (6 - lost) + meanwhile.length, "the counters carry the dead worker's calls over");

  // SIGTERM: the primary has both workers drain their in-flight calls, then exits 0.
  const before = lines.filter(isChat).length;
  const draining = staggered(2, 150, () => chatAlone(origin, key, 'drain [[sim:delay_ms=1500]]'));
  await sleep(700);
  gateway.kill('SIGTERM');
  t.same(
    (await draining).map((a) => a.status),
    [200, 200],
    'both in-flight calls finished',
  );
  t.equal(await gateway.exited, 0);
  lines = await waitForLog(gateway, 'the final lines', () => true);
  t.same(
    new Set(
      lines
        .filter(isChat)
        .slice(before)
        .map((l) => l.worker),
    ),
    new Set([1, 2]),
    'one on each worker',
  );
  t.same(
    lines
      .filter((l) => l.msg === 'stopped')
      .map((l) => l.worker ?? 'primary')
      .sort(),
    [1, 2, 'primary'],
    'both workers, then the primary, stopped',
  );
}

/** A broken config with several workers is still one line and exit 1, and no worker is forked. */
export async function brokenConfig(t: Test, env: Record<string, string>, expected: RegExp): Promise<void> {
  const { start } = await gatewayProcesses(t, 0);
  const run = start({ GATEWAY_WORKERS: '2', ...env });
  t.equal(await run.exited, 1);
  // What is not the structured log (simulator warnings of the primary, say) is the error.
  const said = run
    .output()
    .trim()
    .split('\n')
    .filter((line) => !line.startsWith('{'));
  t.equal(said.length, 1, `one line: ${said.join('\n')}`);
  t.match(said[0], expected);
  t.notMatch(run.output(), /worker listening/, 'no worker served');
}

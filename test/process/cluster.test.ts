import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import t, { type Test } from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { alone, logLines, waitForLog, workerPids, type LogLine } from '../helpers/cluster.js';
import { brokenConfig, twoWorkers } from '../helpers/cluster-scenario.js';
import { compiledGateway } from '../helpers/compiled-gateway.js';
import { gatewayProcesses } from '../helpers/gateway-processes.js';
import type { SpawnedGateway } from '../helpers/spawn-gateway.js';

/** GATEWAY_WORKERS on SQLite (every worker on the one file); cluster-postgres.test.ts runs the same on PostgreSQL. */

// A primary and two workers compiled through the TypeScript loader, twice over: minutes on a busy 2-core machine.
t.setTimeout(240_000);

t.test('two workers on SQLite: both serve, metrics summed, a killed worker replaced, SIGTERM drains both', (t) => twoWorkers(t, {}));

t.test('a broken config with workers is one line and exit 1', async (t) => {
  await t.test('a bad port', (t) => brokenConfig(t, { PORT: 'eighty' }, /^gateway: .*gateway\.yaml: \/server\/port must be an integer/));
  await t.test('a bad worker count', (t) =>
    brokenConfig(t, { GATEWAY_WORKERS: 'many' }, /^gateway: .*gateway\.yaml: \/server\/workers must be an integer or "auto"/),
  );
  await t.test('an instance id too long for the workers', (t) =>
    brokenConfig(t, { GATEWAY_INSTANCE_ID: 'x'.repeat(99) }, /^gateway: .*gateway\.yaml: \/server\/instance_id must be at most 97 characters with 2 workers/),
  );
  await t.test("a mistake only a plugin's setup finds is reported once, by the first worker", (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'gateway-cluster-config-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'gateway.yaml');
    const yaml = readFileSync('config/gateway.yaml', 'utf8')
      .replace('catalogue: models.yaml', `catalogue: ${resolve('config/models.yaml')}`)
      .replace('  - name: retry ', '  - name: retry\n    config: { fallback: { gamma: { gamma-5.4: gamma-9 } } }\n    #');
    writeFileSync(file, yaml);
    return brokenConfig(
      t,
      { GATEWAY_CONFIG: file },
      /^gateway: .*gateway\.yaml: \/plugins\/\d+\/config\/fallback\/gamma\/gamma-5\.4: unknown sibling 'gamma-9'$/,
    );
  });
});

/** The primary's children, the one started last first (/proc: start time in clock ticks, field 22). */
function childrenNewestFirst(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  const started = (child: number): number => Number(readFileSync(`/proc/${child}/stat`, 'utf8').split(') ')[1]?.split(' ')[19]);
  return children.sort((a, b) => started(b) - started(a));
}

/**
 * Two workers, caught while the second starts: the first listens (the group is not ready before
 * both do); the second is forked then, and needs a moment to start. Its pid and the origin.
 */
async function secondWorkerBooting(t: Test, gateway: SpawnedGateway): Promise<{ booting: number; origin: string }> {
  const first = await waitForLog(gateway, 'the first worker listening', (l) => workerPids(l).has(1));
  const origin = first.find((l) => l.msg === 'worker listening')?.['origin'] as string;
  let booting: number | undefined;
  for (let i = 0; i < 100 && booting === undefined; i++) {
    const children = childrenNewestFirst(gateway.process.pid as number);
    if (children.length === 2) booting = children[0];
    else await sleep(10);
  }
  t.ok(booting, 'the second worker was forked');
  t.notOk(workerPids(logLines(gateway.output())).has(2), 'and does not listen yet');
  return { booting: booting as number, origin };
}

/** Who logged `stopped`, in order: worker slots, and 'primary'. */
const stoppedBy = (lines: LogLine[]): Array<number | string> => lines.filter((l) => l.msg === 'stopped').map((l) => l.worker ?? 'primary');

t.test('a worker killed before it listens while another serves: replaced, and the group keeps serving', async (t) => {
  const { start } = await gatewayProcesses(t, 0, await compiledGateway());
  const gateway = start({ GATEWAY_WORKERS: '2' });
  const { booting, origin } = await secondWorkerBooting(t, gateway);
  process.kill(booting, 'SIGKILL');
  const lines = await waitForLog(gateway, 'a second worker listening', (l) => (workerPids(l).get(2) ?? booting) !== booting);
  t.ok(
    lines.some((l) => l.msg.startsWith('worker died') && l.worker === 2 && l.signal === 'SIGKILL'),
    'its death is logged, and it is replaced',
  );
  t.equal(gateway.process.exitCode, null, 'the group did not stop');
  t.equal((await alone(`${origin}/readyz`)).status, 200, 'and serves');
});

t.test('SIGTERM while a worker is still starting: it acknowledged nothing, so the group stops cleanly', async (t) => {
  const { start } = await gatewayProcesses(t, 0, await compiledGateway());
  const gateway = start({ GATEWAY_WORKERS: '2' });
  await secondWorkerBooting(t, gateway);
  gateway.kill('SIGTERM');
  t.equal(await gateway.exited, 0);
  const lines = logLines(gateway.output());
  t.notOk(
    lines.some((l) => l.msg === 'shutdown failed'),
    'no failure reported',
  );
  t.same(stoppedBy(lines), [1, 'primary'], 'the listening worker, then the primary, stopped');
});

t.test('a worker that does not stop within the bound: killed, and the primary exits 1 without claiming it stopped', async (t) => {
  const { start } = await gatewayProcesses(t, 0, await compiledGateway());
  // The bound is the grace period plus the primary's 10 s margin.
  const gateway = start({ GATEWAY_WORKERS: '2', GATEWAY_SHUTDOWN_GRACE_MS: '100' });
  const pids = workerPids(await waitForLog(gateway, 'both workers listening', (l) => workerPids(l).size === 2));
  process.kill(pids.get(1) as number, 'SIGSTOP');
  gateway.kill('SIGTERM');
  t.equal(await gateway.exited, 1);
  const lines = logLines(gateway.output());
  t.ok(
    lines.some((l) => l.msg.startsWith('worker still running after the drain bound') && l.worker === 1),
    'the stuck worker is killed',
  );
  t.ok(
    lines.some((l) => l.msg === 'shutdown failed' && l.worker === undefined),
    'the primary reports the failure',
  );
  t.same(stoppedBy(lines), [2], 'and only the worker that stopped says so');
});

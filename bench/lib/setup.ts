import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { LoadJob, LoadResult } from '../load/protocol.js';
import { startGateway, type BenchGateway } from '../servers/gateway.js';
import type { SimulatorOrigins } from '../servers/simulators.js';
import { allowedCores, planCores, ProcessGroup, readyMessage, type CorePlan, type Started } from './processes.js';
import type { Family, Origins } from './workload.js';

/** Starting the bench's processes (each in its own, pinned) and describing the machine they run on. */

export interface Machine {
  cores: number;
  node: string;
  cpu: string;
  /** 1-, 5- and 15-minute load averages when asked. */
  load: () => string;
}

export function machine(): Machine {
  const cpu = /model name\s*:\s*(.+)/.exec(readFileSync('/proc/cpuinfo', 'utf8'))?.[1] ?? 'unknown CPU';
  return {
    cores: availableParallelism(),
    node: process.version,
    cpu,
    load: () => loadavg().map((value) => value.toFixed(2)).join(' '),
  };
}

/** The load generator, one job at a time over IPC. */
export interface LoadGenerator {
  process: Started;
  run<T extends LoadResult>(job: LoadJob): Promise<T>;
}

function loadGenerator(started: Started): LoadGenerator {
  return {
    process: started,
    run: <T extends LoadResult>(job: LoadJob) =>
      new Promise<T>((resolve, reject) => {
        const onExit = (): void => reject(new Error('bench: the load generator exited during a run'));
        started.child.once('exit', onExit);
        started.child.once('message', (message: { result?: T; error?: string }) => {
          started.child.off('exit', onExit);
          if (message.result) resolve(message.result);
          else reject(new Error(`bench: load generator: ${message.error ?? 'no result'}`));
        });
        started.child.send(job);
      }),
  };
}

export interface Bench {
  plan: CorePlan;
  group: ProcessGroup;
  sims: Started;
  floor: Started | null;
  gateway: BenchGateway;
  load: LoadGenerator;
  origins: Origins;
}

const script = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

export interface BenchOptions {
  /** The gateway's stdout and stderr go here. */
  gatewayLog: string;
  /** Start the floor (the soak does without). */
  withFloor: boolean;
  /** Where the gateway writes a CPU profile, or null for none. */
  profileDir: string | null;
}

/**
 * Starts the simulators, the floor, the gateway and the load generator; pins this
 * orchestrator to the load core, where it idles while a load runs.
 */
export async function startBench({ gatewayLog, withFloor, profileDir }: BenchOptions): Promise<Bench> {
  const plan = planCores(availableParallelism());
  const group = new ProcessGroup(plan);
  try {
    const sims = group.spawnNode('simulators', plan.servers, [script('../servers/simulators.js')]);
    const simOrigins = await readyMessage<SimulatorOrigins>(sims);
    let floor: Started | null = null;
    let floorOrigins: Record<Family, string> = simOrigins;
    if (withFloor) {
      floor = group.spawnNode('floor', plan.servers, [script('../servers/floor.js'), `gamma=${simOrigins.gamma}`, `alpha=${simOrigins.alpha}`]);
      floorOrigins = await readyMessage<Record<Family, string>>(floor);
    }
    const gateway = await startGateway(group, plan.servers, simOrigins, gatewayLog, profileDir);
    const loadProcess = group.spawnNode('load generator', plan.load, [script('../load/worker.js')]);
    await readyMessage(loadProcess);
    if (plan.pinned) spawnSync('taskset', ['-a', '-cp', String(plan.load), String(process.pid)], { stdio: 'ignore' });
    return {
      plan,
      group,
      sims,
      floor,
      gateway,
      load: loadGenerator(loadProcess),
      origins: { direct: simOrigins, floor: floorOrigins, gateway: gateway.origin },
    };
  } catch (error) {
    await group.stopAll();
    throw error;
  }
}

/** Stops every process and removes the gateway's temporary database. */
export async function stopBench(bench: Bench): Promise<void> {
  await bench.group.stopAll();
  bench.gateway.cleanup();
}

/** "Which core each process ran on", for the output. */
export function coreLines(bench: Bench): string[] {
  const lines = [
    ...bench.group.running().map((p) => `  ${p.name.padEnd(15)} pid ${String(p.pid).padEnd(8)} cores ${allowedCores(p.pid)}`),
    `  ${'orchestrator'.padEnd(15)} pid ${String(process.pid).padEnd(8)} cores ${allowedCores(process.pid)}`,
  ];
  if (!bench.plan.pinned) lines.push('  (not pinned: taskset missing or fewer than 2 cores; servers and load share the cores)');
  return lines;
}

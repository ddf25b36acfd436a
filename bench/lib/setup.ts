import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import type { LoadJob, LoadResult } from '../load/protocol.js';
import { startGateway, type BenchGateway } from '../servers/gateway.js';
import { startOtlpSink, type OtlpSink } from '../servers/otlp-sink.js';
import type { SimulatorOrigins } from '../servers/simulators.js';
import { startPostgresServer, type PostgresServer } from './postgres-server.js';
import { allowedCores, planCores, ProcessGroup, readyMessage, type CorePlan, type Started } from './processes.js';
import { gatewaysOf, targetsOf, type GatewayVariant, type Target } from './targets.js';
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
    load: () =>
      loadavg()
        .map((value) => value.toFixed(2))
        .join(' '),
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
  /** Measured in each round, in this order. */
  targets: Target[];
  sims: Started;
  floor: Started | null;
  /** The bare 401 server of the refusal scenario (bench/servers/refuser.ts), or null. */
  refuser: { process: Started; origin: string } | null;
  /** One per gateway target, in the targets' order; the baseline first. */
  gateways: BenchGateway[];
  /** The PostgreSQL server of the `postgres` gateways, or null. */
  postgres: PostgresServer | null;
  /** The collector of the `--telemetry` gateway, or null. */
  otlpSink: OtlpSink | null;
  load: LoadGenerator;
  origins: Origins;
}

const script = (name: string): string => fileURLToPath(new URL(name, import.meta.url));

export interface StartOptions {
  /** Each gateway's stdout and stderr go to `<logPrefix>-<target id>.log`. */
  logPrefix: string;
  /** Start the floor (the soak does without). */
  withFloor: boolean;
  /** Start the bare 401 server (for bench/agent-path.ts). */
  withRefuser: boolean;
  /** Where the gateways write CPU profiles (a folder per gateway), or null for none. */
  profileDir: string | null;
  variants: readonly GatewayVariant[];
  /** The PostgreSQL server on the servers' cores rather than cores of its own (`--postgres-on-servers`). */
  postgresOnServers?: boolean;
}

/**
 * PostgreSQL as the bench runs it: durable writes (fsync on) without waiting for the WAL flush
 * at each commit (synchronous_commit=off) — what SQLite's WAL with synchronous=NORMAL does:
 * nothing committed is lost when the gateway dies, the last commits can be when the machine does.
 * With synchronous_commit on, every call would wait for an fsync with its key's spend row locked.
 */
export const BENCH_POSTGRES_SETTINGS = { synchronous_commit: 'off' };

export const gatewayLogFile = (logPrefix: string, target: Target): string => `${logPrefix}-${target.id}.log`;

/**
 * Starts the simulators, the floor, PostgreSQL if a gateway needs it, the gateways and the load
 * generator; pins this orchestrator to the load core, where it idles while a load runs.
 */
export async function startBench({ logPrefix, withFloor, withRefuser, profileDir, variants, postgresOnServers = false }: StartOptions): Promise<Bench> {
  const plan = planCores(availableParallelism(), Math.max(...variants.map((v) => v.workers)), postgresOnServers);
  const group = new ProcessGroup(plan);
  const targets = targetsOf(variants, withFloor);
  let postgres: PostgresServer | null = null;
  let otlpSink: OtlpSink | null = null;
  const gateways: BenchGateway[] = [];
  try {
    if (variants.some((v) => v.telemetry)) otlpSink = await startOtlpSink();
    const sims = group.spawnNode('simulators', plan.servers, [script('../servers/simulators.js')]);
    const simOrigins = await readyMessage<SimulatorOrigins>(sims);
    let floor: Started | null = null;
    let floorOrigins: Record<Family, string> = simOrigins;
    if (withFloor) {
      floor = group.spawnNode('floor', plan.servers, [script('../servers/floor.js'), `gamma=${simOrigins.gamma}`, `alpha=${simOrigins.alpha}`]);
      floorOrigins = await readyMessage<Record<Family, string>>(floor);
    }
    let refuser: Bench['refuser'] = null;
    if (withRefuser) {
      const started = group.spawnNode('bare 401 server', plan.servers, [script('../servers/refuser.js')]);
      refuser = { process: started, origin: await readyMessage<string>(started) };
    }
    if (variants.some((v) => v.store === 'postgres')) postgres = await startPostgresServer({ settings: BENCH_POSTGRES_SETTINGS, cpus: plan.store });
    for (const target of gatewaysOf(targets)) {
      const databaseUrl = target.variant?.store === 'postgres' && postgres ? await postgres.createDatabase() : null;
      const profile = profileDir ? `${profileDir}/${target.id}` : null;
      gateways.push(
        await startGateway(group, {
          target,
          cpus: plan.servers,
          sims: simOrigins,
          logFile: gatewayLogFile(logPrefix, target),
          profileDir: profile,
          databaseUrl,
          otlpEndpoint: target.variant?.telemetry && otlpSink ? otlpSink.origin : null,
        }),
      );
    }
    const loadProcess = group.spawnNode('load generator', plan.load, [script('../load/worker.js')]);
    await readyMessage(loadProcess);
    if (plan.pinned && plan.load !== null) spawnSync('taskset', ['-a', '-cp', plan.load, String(process.pid)], { stdio: 'ignore' });
    return {
      plan,
      group,
      targets,
      sims,
      floor,
      refuser,
      gateways,
      postgres,
      otlpSink,
      load: loadGenerator(loadProcess),
      origins: { direct: simOrigins, floor: floorOrigins, gateways: Object.fromEntries(gateways.map((g) => [g.target.id, { origin: g.origin, key: g.key }])) },
    };
  } catch (error) {
    await group.stopAll();
    for (const gateway of gateways) gateway.cleanup();
    await postgres?.stop();
    await otlpSink?.close();
    throw error;
  }
}

/** Stops every process and removes the gateways' temporary databases and the PostgreSQL server. */
export async function stopBench(bench: Bench): Promise<void> {
  await bench.group.stopAll();
  for (const gateway of bench.gateways) gateway.cleanup();
  await bench.postgres?.stop();
  await bench.otlpSink?.close();
}

/** "Which core each process ran on", for the output. */
export function coreLines(bench: Bench): string[] {
  const line = (name: string, pid: number): string => `  ${name.padEnd(22)} pid ${String(pid).padEnd(8)} cores ${allowedCores(pid)}`;
  return [
    ...bench.group.running().map((p) => line(p.name, p.pid)),
    ...(bench.postgres ? [line('postgresql server', bench.postgres.pid)] : []),
    line('orchestrator', process.pid),
    `  (${bench.plan.note})`,
  ];
}

import { spawn, spawnSync, type ChildProcess, type StdioOptions } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/**
 * Every process the bench starts, pinned to a core where `taskset` exists, and all of them
 * killed on the way out: at the end, on an error, on Ctrl-C. Nothing is left running.
 */

export interface CorePlan {
  /** Whether `taskset` pins anything (false: the processes float and `note` says why). */
  pinned: boolean;
  /** The cores of the servers (simulators, floor, gateways, PostgreSQL), a `taskset -c` list: they compete as they would on one box. */
  servers: string | null;
  /** The core of the load generator (and this orchestrator, idle while a load runs). */
  load: string | null;
  /** The cores of the PostgreSQL server, if a gateway uses one. */
  store: string | null;
  /** Why the plan is what it is, for the output. */
  note: string;
}

function hasTaskset(): boolean {
  return spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
}

/**
 * The load generator on core 0; the servers on the next cores: one (core 1) when every gateway
 * has one worker, N (cores 1…N) when one has N workers, so that its workers can run in parallel.
 * Without those N + 1 cores (or taskset), nothing is pinned: every process floats on every core
 * and the load generator competes with the servers — the output says so.
 *
 * PostgreSQL is a server of its own host in any deployment of several gateways, so it does not
 * take the gateways' cores: it gets the cores left over, or, with none left (2 cores), the load
 * generator's core, which the generator uses for under a tenth during a gateway's run (the
 * report's last columns). `onServers` puts it with the servers instead, to compare.
 */
export function planCores(cores: number, workers: number, onServers = false, taskset = hasTaskset()): CorePlan {
  const needed = workers + 1;
  if (!taskset) return { pinned: false, servers: null, load: null, store: null, note: 'not pinned: taskset is missing; servers and load share the cores' };
  if (cores < needed) {
    const why =
      workers > 1 ? `${workers} gateway workers need ${workers} cores beside the load generator's` : "the servers need a core beside the load generator's";
    return {
      pinned: false,
      servers: null,
      load: null,
      store: null,
      note: `not pinned: ${why}, and this machine has ${cores}; every process floats on all of them (servers and load generator compete)`,
    };
  }
  const servers = workers === 1 ? '1' : `1-${workers}`;
  const left = cores === needed + 1 ? `${needed}` : `${needed}-${cores - 1}`;
  const store = onServers ? servers : cores > needed ? left : '0';
  const where = onServers
    ? 'with the servers'
    : cores > needed
      ? `on core${store.includes('-') ? 's' : ''} ${store}, its own`
      : "on core 0, beside the load generator (no core is left: the gateways' own stay theirs)";
  return {
    pinned: true,
    servers,
    load: '0',
    store,
    note: `servers on core${workers === 1 ? '' : 's'} ${servers}, the load generator and this orchestrator on core 0; PostgreSQL, if used, ${where}`,
  };
}

/** The cores a process may run on, as the kernel has it (`Cpus_allowed_list`). */
export function allowedCores(pid: number): string {
  try {
    return /Cpus_allowed_list:\s*(\S+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? '?';
  } catch {
    return '?';
  }
}

/** Resident set size in KiB (`VmRSS`), or null once the process is gone. */
export function rssKiB(pid: number): number | null {
  try {
    const match = /VmRSS:\s*(\d+)\s*kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

/** The RSS of a process and its live descendants (a gateway's workers) in KiB, or null once it is gone. */
export function treeRssKiB(pid: number): number | null {
  const own = rssKiB(pid);
  return own === null ? null : descendants(pid).reduce((sum, child) => sum + (rssKiB(child) ?? 0), own);
}

const CLOCK_TICKS_PER_S = Number((spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).stdout as string | null)?.trim()) || 100;

/** The fields of /proc/<pid>/stat after the parenthesised command name (state first, then ppid, …), or null once gone. */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** The live processes below `pid` (children, theirs, …): a gateway's workers, PostgreSQL's backends. */
function descendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const parent = Number(statFields(Number(entry))?.[1]);
    if (!Number.isFinite(parent)) continue;
    children.set(parent, [...(children.get(parent) ?? []), Number(entry)]);
  }
  const found: number[] = [];
  for (let queue = [pid]; queue.length;) {
    const next = children.get(queue.shift() as number) ?? [];
    found.push(...next);
    queue.push(...next);
  }
  return found;
}

/**
 * CPU time (user + system, all threads) a process and everything below it has used so far, in
 * ms: its own, its children's that ended and were reaped (cutime, cstime) and its live
 * descendants'. 10 ms resolution on most kernels; NaN once the process is gone.
 */
export function treeCpuMs(pid: number): number {
  // utime, stime, cutime, cstime are fields 14–17 of /proc/<pid>/stat, so 11–14 here.
  const own = statFields(pid);
  if (!own) return NaN;
  const ticks = (fields: string[] | null, from: number, to: number): number =>
    fields ? fields.slice(from, to + 1).reduce((sum, field) => sum + Number(field), 0) : 0;
  const total = ticks(own, 11, 14) + descendants(pid).reduce((sum, child) => sum + ticks(statFields(child), 11, 12), 0);
  return (total * 1000) / CLOCK_TICKS_PER_S;
}

export interface Started {
  name: string;
  child: ChildProcess;
  pid: number;
}

export class ProcessGroup {
  private readonly children: Started[] = [];
  private readonly onSignal = (signal: NodeJS.Signals): void => {
    process.stderr.write(`\nbench: ${signal}, stopping every process it started\n`);
    this.killAll();
    process.exit(130);
  };

  constructor(private readonly plan: CorePlan) {
    process.once('SIGINT', this.onSignal);
    process.once('SIGTERM', this.onSignal);
    // Last resort (an uncaught error ends the process): still kill the children.
    process.once('exit', () => this.killAll());
  }

  /**
   * Starts `node <args>` on the given cores (`taskset -c` execs node, so the pid is node's).
   * `output`: a file descriptor for its stdout and stderr (default: this terminal). `ipc`:
   * open a channel for `readyMessage` (bench processes; the gateway runs as in production, without).
   */
  spawnNode(
    name: string,
    cpus: string | null,
    args: string[],
    options: { env?: NodeJS.ProcessEnv; output?: number; ipc?: boolean; cwd?: string } = {},
  ): Started {
    // A title of its own (it replaces the command line in ps and /proc/<pid>/cmdline): on a
    // shared machine someone's `pkill -f dist/src/main.js` must not end the bench's gateway.
    const node = [process.execPath, `--title=model-gateway-bench:${name.replace(/\s+/g, '-')}`, ...args];
    const [command, ...rest] = this.plan.pinned && cpus !== null ? ['taskset', '-c', cpus, ...node] : node;
    const output = options.output ?? 'inherit';
    const stdio: StdioOptions = ['ignore', output, output, ...(options.ipc === false ? [] : ['ipc' as const])];
    const child = spawn(command as string, rest, { stdio, env: options.env ?? process.env, ...(options.cwd ? { cwd: options.cwd } : {}) });
    if (child.pid === undefined) throw new Error(`bench: could not start ${name}`);
    const started = { name, child, pid: child.pid };
    this.children.push(started);
    child.once('exit', (code, signal) => {
      const index = this.children.indexOf(started);
      if (index >= 0) this.children.splice(index, 1);
      // Any exit before stopAll is a failure, a clean one too: a SIGTERM from outside ends the gateway with code 0.
      if (!this.stopping) {
        this.lost ??= `${name} (pid ${started.pid}) exited during the run (${signal ?? `code ${code}`})`;
        process.stderr.write(`\n!!! bench: ${this.lost} !!!\n`);
      }
    });
    return started;
  }

  private stopping = false;
  private lost: string | null = null;

  /** Throws if a process died before the end (a measurement after that would be meaningless). */
  assertAlive(): void {
    if (this.lost) throw new Error(`bench: ${this.lost}; stopping (another process on this machine killing it?)`);
  }

  /** Those still running, for the "which core" lines. */
  running(): readonly Started[] {
    return this.children;
  }

  /** SIGTERM every child, then SIGKILL whoever is left after a grace period. */
  async stopAll(graceMs = 3000): Promise<void> {
    this.stopping = true;
    const exits = this.children.map(
      ({ child }) => new Promise<void>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once('exit', () => resolve()))),
    );
    for (const { child } of this.children) child.kill('SIGTERM');
    const timer = setTimeout(() => this.killAll(), graceMs);
    await Promise.all(exits);
    clearTimeout(timer);
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }

  private killAll(): void {
    this.stopping = true;
    for (const { child } of this.children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
}

/** The first IPC message of a child that says it is ready (or the reason it exited first). */
export function readyMessage<T>(started: Started, timeoutMs = 20_000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`bench: ${started.name} not ready after ${timeoutMs} ms`)), timeoutMs);
    started.child.once('message', (message) => {
      clearTimeout(timer);
      resolve(message as T);
    });
    started.child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`bench: ${started.name} exited (${code}) before it was ready`));
    });
  });
}

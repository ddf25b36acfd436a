import cluster, { type Worker } from 'node:cluster';
import type { Logger } from 'pino';
import { GroupMetrics } from './group-metrics.js';
import { isClusterMessage, WORKER_SLOT_ENV, type ClusterMessage } from './protocol.js';

/**
 * The primary's workers: forked into numbered slots, the first alone (a boot mistake in a
 * plugin's setup is then reported once, by one worker), the rest once it listens. A worker that
 * dies is replaced in its slot — at once if it had served for a while, after a doubling back-off
 * if it died young, so a crash loop does not spin. `stop` asks every worker to drain.
 */

/** A worker that served this long before dying was healthy: its replacement starts at once. */
const HEALTHY_AFTER_MS = 10_000;
/** Back-off after the first early death, doubled for each further one in a row, up to the maximum. */
const FIRST_BACKOFF_MS = 1_000;
const MAX_BACKOFF_MS = 30_000;

export interface SupervisorOptions {
  count: number;
  log: Logger;
  /** Environment every worker gets on top of the primary's (the simulators' URLs). */
  env: Record<string, string>;
  /** How long `stop` waits for the workers' drain before killing them (the drain bound plus a margin). */
  stopTimeoutMs: number;
}

/**
 * Whether a worker's death while the group starts ends the start. An exit with a code is a start
 * failure every worker would repeat (the worker wrote why), and so is any death while no worker
 * serves yet. A worker killed by a signal while another already serves (the port is open and
 * /readyz answers) only had bad luck: it is replaced like any worker that dies.
 */
export const abortsStart = (signal: string | null, serving: boolean): boolean => signal === null || !serving;

/** Why the start failed; the worker has already written its reason (one line) when it exited with a code. */
export class WorkerStartError extends Error {
  constructor(
    message: string,
    readonly reported: boolean,
  ) {
    super(message);
    this.name = 'WorkerStartError';
  }
}

interface Exit {
  code: number | null;
  signal: string | null;
}

interface Slot {
  readonly number: number;
  worker: Worker | null;
  exited: Promise<Exit> | null;
  forkedAt: number;
  listening: boolean;
  /** Deaths in a row before HEALTHY_AFTER_MS. */
  earlyDeaths: number;
  restart: NodeJS.Timeout | null;
}

export class WorkerSupervisor {
  readonly metrics: GroupMetrics;
  private readonly slots: Slot[];
  private state: 'starting' | 'running' | 'stopping' = 'starting';
  private started: { resolve(origin: string): void; reject(error: Error): void } | null = null;
  private origin = '';

  constructor(private readonly options: SupervisorOptions) {
    this.slots = Array.from({ length: options.count }, (_, i) => ({
      number: i + 1,
      worker: null,
      exited: null,
      forkedAt: 0,
      listening: false,
      earlyDeaths: 0,
      restart: null,
    }));
    this.metrics = new GroupMetrics(() => this.slots.flatMap((slot) => (slot.listening && slot.worker ? [slot.worker] : [])));
  }

  /** Resolves with the origin once every worker listens; rejects if one dies before. */
  start(): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      this.started = { resolve, reject };
      this.fork(this.slots[0] as Slot);
    });
  }

  /** Passes a signal on to every live worker (SIGHUP: each reloads its deployments). */
  signal(signal: NodeJS.Signals): void {
    for (const slot of this.slots) slot.worker?.process.kill(signal);
  }

  /**
   * Every worker drains (SIGTERM: its graceful close); resolves true if all of them stopped
   * cleanly: exited 0, or, still starting, were ended by the SIGTERM itself (a worker takes
   * signals over once it listens, so it had acknowledged nothing).
   */
  async stop(): Promise<boolean> {
    this.state = 'stopping';
    const live = this.slots.filter((slot) => slot.worker !== null);
    const starting = new Set(live.filter((slot) => !slot.listening));
    for (const slot of this.slots) if (slot.restart) clearTimeout(slot.restart);
    for (const slot of live) slot.worker?.process.kill('SIGTERM');
    const timer = setTimeout(() => {
      for (const slot of live) {
        if (!slot.worker) continue;
        this.options.log.error({ worker: slot.number, pid: slot.worker.process.pid }, 'worker still running after the drain bound: killing it');
        slot.worker.process.kill('SIGKILL');
      }
    }, this.options.stopTimeoutMs);
    const exits = await Promise.all(live.map((slot) => slot.exited as Promise<Exit>));
    clearTimeout(timer);
    return exits.every((exit, i) => exit.code === 0 || (exit.signal === 'SIGTERM' && starting.has(live[i] as Slot)));
  }

  private fork(slot: Slot): void {
    const worker = cluster.fork({ ...this.options.env, [WORKER_SLOT_ENV]: String(slot.number) });
    slot.worker = worker;
    slot.forkedAt = Date.now();
    slot.listening = false;
    slot.exited = new Promise<Exit>((resolve) => {
      worker.once('exit', (code: number | null, signal: string | null) => {
        resolve({ code, signal });
        this.onExit(slot, worker, { code, signal });
      });
    });
    worker.on('message', (message: unknown) => {
      if (isClusterMessage(message)) this.onMessage(slot, worker, message);
    });
  }

  private onMessage(slot: Slot, worker: Worker, message: ClusterMessage): void {
    if (message.type !== 'gateway:listening') {
      this.metrics.handle(worker, message);
      return;
    }
    slot.listening = true;
    this.origin = message.origin;
    if (this.state !== 'starting') return;
    // The first worker opened the port: the others start (a replacement of the first starts none again).
    if (slot.number === 1) for (const other of this.slots.slice(1)) if (!other.worker && !other.restart) this.fork(other);
    if (this.slots.every((s) => s.listening)) {
      this.state = 'running';
      this.started?.resolve(this.origin);
    }
  }

  private onExit(slot: Slot, worker: Worker, { code, signal }: Exit): void {
    this.metrics.forget(worker);
    if (slot.worker !== worker) return;
    const served = slot.listening ? Date.now() - slot.forkedAt : 0;
    slot.worker = null;
    slot.listening = false;
    if (this.state === 'stopping') return;
    const pid = worker.process.pid;
    if (
      this.state === 'starting' &&
      abortsStart(
        signal,
        this.slots.some((s) => s.listening),
      )
    ) {
      // A worker that exits with a code has written why (its one line); a signal says nothing.
      const how = signal ? `was killed by ${signal}` : `exited with code ${code}`;
      this.state = 'stopping';
      for (const other of this.slots) other.worker?.process.kill('SIGTERM');
      this.started?.reject(new WorkerStartError(`worker ${slot.number} (pid ${pid}) ${how} before it listened`, signal === null));
      return;
    }
    slot.earlyDeaths = served >= HEALTHY_AFTER_MS ? 0 : slot.earlyDeaths + 1;
    const delay = slot.earlyDeaths === 0 ? 0 : Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** (slot.earlyDeaths - 1));
    this.options.log.error({ worker: slot.number, pid, exit_code: code, signal, restart_in_ms: delay }, 'worker died; a replacement takes its slot');
    slot.restart = setTimeout(() => {
      slot.restart = null;
      this.fork(slot);
    }, delay);
  }
}

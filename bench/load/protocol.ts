import type { Percentiles } from '../lib/stats.js';
import type { RequestSpec } from '../lib/workload.js';

/** Jobs the orchestrator sends the load process over IPC, and what comes back. */

/** As many requests as `connections` keep-alive connections can do back to back (autocannon). */
export interface ClosedLoopJob {
  type: 'closed';
  request: RequestSpec;
  connections: number;
  durationS: number;
}

/** Requests started at a fixed rate, evenly spaced, whatever the answers do (our generator). */
export interface OpenLoopJob {
  type: 'open';
  /** Sent in turn (the soak mixes streamed and non-streamed calls). */
  requests: RequestSpec[];
  rate: number;
  durationS: number;
}

export type LoadJob = ClosedLoopJob | OpenLoopJob;

/** Failures of one measurement, by kind. `wrong`: a 200 whose body failed the check. */
export interface Failures {
  socket: number;
  timeouts: number;
  non200: number;
  wrong: number;
  /** What the first failure was (an error message, a status and body start), to diagnose it. */
  first?: string;
}

export interface ClosedLoopResult {
  type: 'closed';
  /** Correct answers per second. */
  rps: number;
  ok: number;
  /** Request written → last byte, of the 200s, ms. */
  latency: Percentiles;
  failures: Failures;
}

export interface OpenLoopResult {
  type: 'open';
  sent: number;
  ok: number;
  /** Request started → last byte, ms. */
  total: Percentiles;
  /** Request started → first byte of the body, ms. */
  ttfb: Percentiles;
  /** How late the generator started requests against the schedule (its own lag), p99 ms. */
  lateP99: number;
  failures: Failures;
}

export type LoadResult = ClosedLoopResult | OpenLoopResult;

export const failureCount = (f: Failures): number => f.socket + f.timeouts + f.non200 + f.wrong;

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
  /** Also time each stream's first token and the gaps between its chunks (streams of text only). */
  tokens?: boolean;
  /** The indexes in `requests` of those the figures are of (absent: all); the others' answers are checked all the same. */
  figured?: number[];
}

/** `streams` callers at once, each sending its next stream when its last one ended (bench/load/concurrent.ts); streams of text only. */
export interface ConcurrentJob {
  type: 'concurrent';
  request: RequestSpec;
  streams: number;
  durationS: number;
}

export type LoadJob = ClosedLoopJob | OpenLoopJob | ConcurrentJob;

/** Failures of one measurement, by kind. `non200`: another status than the request's expected one (200 unless it says); `wrong`: a body that failed the check. */
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
  /** Correct answers, of every request (figured or not). */
  ok: number;
  /** Request started → last byte, ms. */
  total: Percentiles;
  /** Request started → first byte of the body, ms. */
  ttfb: Percentiles;
  /** With `tokens`: request started → the chunk with the first token, ms. */
  ttft?: Percentiles;
  /** With `tokens`: the gaps between a stream's chunks after its first token, all streams' together, ms. */
  gap?: Percentiles;
  /** How late the generator started requests against the schedule (its own lag), p99 ms. */
  lateP99: number;
  failures: Failures;
}

export interface ConcurrentResult extends Omit<OpenLoopResult, 'type' | 'lateP99'> {
  type: 'concurrent';
}

export type LoadResult = ClosedLoopResult | OpenLoopResult | ConcurrentResult;

export const failureCount = (f: Failures): number => f.socket + f.timeouts + f.non200 + f.wrong;

import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { percentiles } from '../lib/stats.js';
import { checkBody, FIRST_TOKEN_MARK } from './checks.js';
import { unknownKey, type RequestSpec } from '../lib/workload.js';
import type { Failures, OpenLoopJob, OpenLoopResult } from './protocol.js';

/**
 * Open loop: requests start on an even schedule (every 1000/rate ms) whether or not earlier
 * ones have answered, so a slow answer does not delay the next request and latency is
 * measured without queueing in the generator (no coordinated omission). Even spacing rather
 * than Poisson: at a few hundred requests/s it loads the target steadily and makes rounds
 * comparable; bursts are the closed loop's job.
 */

type FailureKind = 'socket' | 'timeouts' | 'non200' | 'wrong';
/** `ttft`, `gaps`: only when the job asks for token timings (else NaN and none). */
export type Sample = { ok: true; total: number; ttfb: number; ttft: number; gaps: number[] } | { ok: false; failure: FailureKind; detail: string };

const REQUEST_TIMEOUT_MS = 10_000;

/**
 * Time to first token (to the chunk where the check kind's first-token mark is complete) and the
 * gaps between the chunks that follow it, fed each chunk as it arrives.
 */
export class TokenClock {
  ttft = NaN;
  readonly gaps: number[] = [];
  private seen = '';
  private last = NaN;

  constructor(private readonly mark: string) {}

  chunk(text: string, sinceStart: number): void {
    if (Number.isNaN(this.ttft)) {
      // Only the tail a mark split across two chunks could start in is kept.
      this.seen = (this.seen + text).slice(-(text.length + this.mark.length));
      if (this.seen.includes(this.mark)) this.ttft = sinceStart;
    } else this.gaps.push(sinceStart - this.last);
    this.last = sinceStart;
  }
}

/** One request, its answer checked; `tokens`: time its first token and the gaps after it. */
export function send(request: RequestSpec, agent: http.Agent, url: URL, tokens: boolean): Promise<Sample> {
  const mark = tokens ? FIRST_TOKEN_MARK[request.check] : null;
  if (tokens && mark === null) throw new Error(`bench: ${request.check} answers have no tokens to time`);
  return new Promise((resolve) => {
    const started = performance.now();
    let settled = false;
    const settle = (sample: Sample): void => {
      if (!settled) resolve(sample);
      settled = true;
    };
    const key = request.freshKey ? { authorization: `Bearer ${unknownKey()}` } : {};
    const headers = { ...request.headers, ...key, 'content-length': Buffer.byteLength(request.body) };
    const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
      let ttfb = NaN;
      const clock = mark === null ? null : new TokenClock(mark);
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => {
        const now = performance.now() - started;
        if (!chunks.length) ttfb = now;
        clock?.chunk(chunk.toString('latin1'), now);
        chunks.push(chunk);
      });
      res.on('end', () => {
        const total = performance.now() - started;
        const body = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode !== (request.status ?? 200)) return settle({ ok: false, failure: 'non200', detail: `${res.statusCode} ${body.slice(0, 300)}` });
        if (!checkBody(request.check, body)) return settle({ ok: false, failure: 'wrong', detail: body.slice(-300) });
        settle({ ok: true, total, ttfb, ttft: clock?.ttft ?? NaN, gaps: clock?.gaps ?? [] });
      });
      res.on('error', (error) => settle({ ok: false, failure: 'socket', detail: `response: ${error.message}` }));
    });
    req.setTimeout(REQUEST_TIMEOUT_MS, () => {
      settle({ ok: false, failure: 'timeouts', detail: `no answer within ${REQUEST_TIMEOUT_MS} ms` });
      req.destroy();
    });
    req.on('error', (error) => settle({ ok: false, failure: 'socket', detail: `request: ${error.message}` }));
    req.end(request.body);
  });
}

export async function openLoop(job: OpenLoopJob): Promise<OpenLoopResult> {
  const agent = new http.Agent({ keepAlive: true });
  const urls = job.requests.map((request) => new URL(request.url));
  const total = Math.round(job.rate * job.durationS);
  const interval = 1000 / job.rate;
  const pending: Array<Promise<Sample>> = [];
  const figured = (which: number): boolean => job.figured?.includes(which) ?? true;
  const late: number[] = [];
  const start = performance.now() + 5;
  await new Promise<void>((resolve) => {
    const tick = (): void => {
      const now = performance.now();
      // Catch up on every slot whose time has come (a late timer must not lower the rate).
      while (pending.length < total && start + pending.length * interval <= now) {
        late.push(now - (start + pending.length * interval));
        const which = pending.length % job.requests.length;
        pending.push(send(job.requests[which] as RequestSpec, agent, urls[which] as URL, job.tokens === true && figured(which)));
      }
      if (pending.length >= total) return resolve();
      setTimeout(tick, Math.max(0, start + pending.length * interval - performance.now()));
    };
    tick();
  });
  const samples = await Promise.all(pending);
  agent.destroy();
  const tallied = tally(
    samples.map((sample, index) => ({ sample, figured: figured(index % job.requests.length) })),
    job.tokens === true,
  );
  return { type: 'open', sent: total, ...tallied, lateP99: percentiles(late).p99 };
}

/** The failures of every sample, and the figures of the correct ones marked `figured` (with `tokens`: first token and gaps too). */
export function tally(
  samples: ReadonlyArray<{ sample: Sample; figured: boolean }>,
  tokens: boolean,
): Pick<OpenLoopResult, 'ok' | 'total' | 'ttfb' | 'ttft' | 'gap' | 'failures'> {
  const failures: Failures = { socket: 0, timeouts: 0, non200: 0, wrong: 0 };
  let ok = 0;
  const totals: number[] = [];
  const ttfbs: number[] = [];
  const ttfts: number[] = [];
  const gaps: number[] = [];
  for (const { sample, figured } of samples) {
    if (!sample.ok) {
      failures[sample.failure] += 1;
      failures.first ??= sample.detail;
      continue;
    }
    ok += 1;
    if (!figured) continue;
    totals.push(sample.total);
    ttfbs.push(sample.ttfb);
    ttfts.push(sample.ttft);
    gaps.push(...sample.gaps);
  }
  const timed = tokens ? { ttft: percentiles(ttfts), gap: percentiles(gaps) } : {};
  return { ok, total: percentiles(totals), ttfb: percentiles(ttfbs), ...timed, failures };
}

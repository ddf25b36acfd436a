import autocannon, { type RequestParams } from 'autocannon';
import { unknownKey } from '../lib/workload.js';
import { percentiles } from '../lib/stats.js';
import { checkBody } from './checks.js';
import type { ClosedLoopJob, ClosedLoopResult } from './protocol.js';

/** Closed loop with autocannon: `connections` keep-alive connections, each sending its next request when the answer is in. */
export function closedLoop(job: ClosedLoopJob): Promise<ClosedLoopResult> {
  const { request } = job;
  const latencies: number[] = [];
  // autocannon checks every body, error answers too; those of another status than the one
  // expected count here (not as autocannon's non-2xx: a refusal's 401 can be the right answer).
  // Its 'response' event comes right before the check of the same answer, so this is that status.
  const expected = request.status ?? 200;
  let lastStatus = 0;
  let unexpected = 0;
  let wrong = 0;
  let first: string | undefined;
  const verifyBody = (body: string): boolean => {
    if (lastStatus !== expected) first ??= `${lastStatus} ${body.slice(0, 300)}`;
    if (lastStatus !== expected || checkBody(request.check, body)) return true;
    wrong += 1;
    first ??= body.slice(-300);
    return false;
  };
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: request.url,
        method: 'POST',
        headers: request.headers,
        body: request.body,
        connections: job.connections,
        duration: job.durationS,
        timeout: 10,
        verifyBody,
        // A new unknown key on every request of the invalid-key flood.
        ...(request.freshKey
          ? { requests: [{ setupRequest: (req: RequestParams) => ({ ...req, headers: { ...req.headers, authorization: `Bearer ${unknownKey()}` } }) }] }
          : {}),
      },
      (error, result) => {
        if (error) return reject(error);
        const failures = { socket: result.errors - result.timeouts, timeouts: result.timeouts, non200: unexpected, wrong, ...(first ? { first } : {}) };
        // autocannon's own latency histogram is in whole milliseconds; ours keeps the fractions.
        const ok = latencies.length - wrong;
        resolve({ type: 'closed', rps: ok / result.duration, ok, latency: percentiles(latencies), failures });
      },
    );
    instance.on('reqError', (error) => {
      first ??= error.message;
    });
    instance.on('response', (_client, status, _bytes, responseTime) => {
      lastStatus = status;
      if (status === expected) latencies.push(responseTime);
      else unexpected += 1;
    });
  });
}

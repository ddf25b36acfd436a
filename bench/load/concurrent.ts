import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { send, tally, type Sample } from './open-loop.js';
import type { ConcurrentJob, ConcurrentResult } from './protocol.js';

/**
 * Concurrent streams: `streams` callers at once, each sending the next stream as soon as its
 * last one ended, for `durationS`; every answer checked, and each stream's first token and the
 * gaps between its chunks timed.
 */
export async function concurrentStreams(job: ConcurrentJob): Promise<ConcurrentResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.streams });
  const url = new URL(job.request.url);
  const end = performance.now() + job.durationS * 1000;
  const samples: Sample[] = [];
  const caller = async (): Promise<void> => {
    while (performance.now() < end) samples.push(await send(job.request, agent, url, true));
  };
  await Promise.all(Array.from({ length: job.streams }, caller));
  agent.destroy();
  return {
    type: 'concurrent',
    sent: samples.length,
    ...tally(
      samples.map((sample) => ({ sample, figured: true })),
      true,
    ),
  };
}

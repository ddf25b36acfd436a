import { closedLoop } from './closed-loop.js';
import { concurrentStreams } from './concurrent.js';
import { openLoop } from './open-loop.js';
import type { LoadJob, LoadResult } from './protocol.js';

/**
 * The load generator: a process of its own (on its own core), running one job at a time as the
 * orchestrator sends them over IPC and answering each with its result.
 */

function run(job: LoadJob): Promise<LoadResult> {
  if (job.type === 'closed') return closedLoop(job);
  return job.type === 'open' ? openLoop(job) : concurrentStreams(job);
}

process.on('message', (job: LoadJob) => {
  run(job).then(
    (result) => process.send?.({ result }),
    (error: unknown) => process.send?.({ error: (error as Error).message }),
  );
});
process.once('disconnect', () => process.exit(0));
process.send?.({ ready: true });

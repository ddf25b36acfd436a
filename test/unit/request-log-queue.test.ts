import t from 'tap';
import { RecordQueue } from '../../plugins/request-log/record-queue.js';
import { ID_PREFIX, type RequestRecord } from '../../plugins/request-log/store/log-store.js';

/**
 * The request log's queue (plugins/request-log/record-queue.ts): records wait at most `flushMs`
 * and are written in batches of at most `batchRows`; a store that does not answer never makes the
 * queue hold more than `maxQueued` — its oldest are dropped and reported — and a failed write is
 * reported, not thrown.
 */

const record = (n: number): RequestRecord => ({ id: `${ID_PREFIX}${String(n).padStart(36, '0')}` }) as RequestRecord;

t.test('batches within flushMs, at most batchRows a write, in order', async (t) => {
  const batches: string[][] = [];
  const queue = new RecordQueue(
    async (records) => void batches.push(records.map((r) => r.id)),
    { maxQueued: 100, flushMs: 20, batchRows: 3 },
    {
      writeFailed: () => t.fail('no failure'),
      dropped: () => t.fail('nothing dropped'),
    },
  );
  for (let i = 0; i < 7; i++) queue.push(record(i));
  t.same(batches, [], 'nothing written at once');
  await new Promise((resolve) => setTimeout(resolve, 60));
  t.same(
    batches.map((b) => b.length),
    [3, 3, 1],
  );
  t.same(
    batches.flat(),
    Array.from({ length: 7 }, (_, i) => record(i).id),
  );
});

t.test('a store that never answers: the queue stays within maxQueued, the oldest dropped', async (t) => {
  let dropped = 0;
  const written: number[] = [];
  let release: () => void = () => undefined;
  const stalled = new Promise<void>((resolve) => (release = resolve));
  const queue = new RecordQueue(
    async (records) => {
      written.push(records.length);
      await stalled;
    },
    { maxQueued: 100, flushMs: 10, batchRows: 1000 },
    { writeFailed: () => t.fail('no failure'), dropped: (n) => (dropped += n) },
  );
  queue.push(record(0));
  await new Promise((resolve) => setTimeout(resolve, 30));
  t.same(written, [1], 'the first batch is being written, and hangs');
  for (let i = 1; i <= 10_000; i++) queue.push(record(i));
  t.equal(dropped, 10_000 - 100, 'beyond the bound the oldest go (a tenth at a time): 100 are kept');
  release();
  await queue.flush();
  t.same(written, [1, 100], 'what was written next: the 100 kept');
});

t.test('a failed write is reported, and the queue goes on', async (t) => {
  const failures: number[] = [];
  let fail = true;
  const written: number[] = [];
  const queue = new RecordQueue(
    async (records) => {
      if (fail) throw new Error('database is locked');
      written.push(records.length);
    },
    { maxQueued: 100, flushMs: 10, batchRows: 100 },
    { writeFailed: (_error, n) => failures.push(n), dropped: () => t.fail('nothing dropped') },
  );
  queue.push(record(1));
  queue.push(record(2));
  await queue.flush();
  t.same(failures, [2]);
  fail = false;
  queue.push(record(3));
  await queue.flush();
  t.same(written, [1]);
});

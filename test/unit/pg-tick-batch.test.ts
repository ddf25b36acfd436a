import t from 'tap';
import { TickBatch, type BatchWriter } from '../../src/store/postgres/tick-batch.js';

/** The group commit's rules without a server: what one turn queues goes in one batch; what a failure means. */

function writer(fail: (inputs: readonly number[]) => Error | null): BatchWriter<number, number> & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async many(inputs) {
      calls.push(`many ${inputs.join(',')}`);
      const error = fail(inputs);
      if (error) throw error;
      return inputs.map((n) => n * 10);
    },
    async one(input) {
      calls.push(`one ${input}`);
      if (input < 0) throw Object.assign(new Error('bad row'), { code: '23503' });
      return input * 10;
    },
  };
}

const settled = (promises: Array<Promise<number>>): Promise<string[]> =>
  Promise.allSettled(promises).then((all) => all.map((r) => (r.status === 'fulfilled' ? String(r.value) : 'rejected')));

t.test('one turn, one batch; a lone operation goes alone', async (t) => {
  const w = writer(() => null);
  const batch = new TickBatch(w);
  t.same(await Promise.all([batch.run(1), batch.run(2), batch.run(3)]), [10, 20, 30]);
  t.same(await batch.run(4), 40);
  t.same(w.calls, ['many 1,2,3', 'one 4']);
});

t.test('a batch the server refused: each retried alone, only the bad one fails', async (t) => {
  const w = writer(() => Object.assign(new Error('deadlock detected'), { code: '40P01' }));
  const batch = new TickBatch(w);
  t.same(await settled([batch.run(1), batch.run(-2), batch.run(3)]), ['10', 'rejected', '30']);
  t.same(w.calls, ['many 1,-2,3', 'one 1', 'one -2', 'one 3']);
});

t.test('a batch whose outcome is unknown (the connection broke): every caller fails, nothing retried', async (t) => {
  const w = writer(() => Object.assign(new Error('Connection terminated unexpectedly'), { code: 'ECONNRESET' }));
  const batch = new TickBatch(w);
  t.same(await settled([batch.run(1), batch.run(2)]), ['rejected', 'rejected']);
  t.same(w.calls, ['many 1,2']);
});

t.test('one batch out at a time: what is queued meanwhile, over several turns, goes together in the next', async (t) => {
  const calls: string[] = [];
  let out = 0;
  let most = 0;
  let release: () => void = () => undefined;
  const writer: BatchWriter<number, number> = {
    async many(inputs) {
      calls.push(`many ${inputs.join(',')}`);
      most = Math.max(most, ++out);
      if (calls.length === 1) await new Promise<void>((resolve) => (release = resolve));
      out -= 1;
      return inputs.map((n) => n * 10);
    },
    async one(input) {
      calls.push(`one ${input}`);
      return input * 10;
    },
  };
  const batch = new TickBatch(writer);
  const first = Promise.all([batch.run(1), batch.run(2)]);
  await new Promise((resolve) => setImmediate(resolve));
  t.same(calls, ['many 1,2'], 'the first turn went at once');
  const queued: Array<Promise<number>> = [];
  for (const n of [3, 4, 5]) {
    queued.push(batch.run(n));
    await new Promise((resolve) => setImmediate(resolve));
  }
  t.same(calls, ['many 1,2'], 'nothing more while it is out');
  release();
  t.same(await first, [10, 20]);
  t.same(await Promise.all(queued), [30, 40, 50]);
  t.same(calls, ['many 1,2', 'many 3,4,5'], 'three turns of calls in the next statement');
  t.equal(most, 1, 'never two out at once');
  t.same(await batch.run(6), 60, 'and afterwards, a lone call goes at once');
  t.same(calls.at(-1), 'one 6');
});

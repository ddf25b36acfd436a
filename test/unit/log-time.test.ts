import t from 'tap';
import { pino } from 'pino';
import { isoTimeOncePerMs } from '../../src/log.js';

/** Log lines carry pino's ISO time field; it is formatted once per millisecond and is new in every other. */

t.test("the time field is pino's isoTime, reformatted only when the millisecond changes", async (t) => {
  const realNow = Date.now;
  t.teardown(() => {
    Date.now = realNow;
  });
  let now = Date.UTC(2026, 10, 30, 4, 5, 6, 789);
  Date.now = () => now;
  const first = isoTimeOncePerMs();
  t.equal(first, pino.stdTimeFunctions.isoTime(), "the same text as pino's isoTime");
  t.equal(first, ',"time":"2026-11-30T04:05:06.789Z"');
  t.equal(isoTimeOncePerMs(), first, 'the same millisecond: the same text');
  now += 1;
  t.equal(isoTimeOncePerMs(), ',"time":"2026-11-30T04:05:06.790Z"', 'the next millisecond: its own time');
});

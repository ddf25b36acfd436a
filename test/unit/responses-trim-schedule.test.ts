import t from 'tap';
import { TrimSchedule } from '../../plugins/ingress-responses/trim-schedule.js';

/** A key is due a trim once an eighth of its budget was stored since its last one; the rest waits for the hourly prune. */

t.test('a trim is due at each eighth of the budget, counted per key', async (t) => {
  const schedule = new TrimSchedule(800); // an eighth: 100
  t.same([schedule.stored('a', 60), schedule.stored('b', 60), schedule.stored('a', 40)], [false, false, true], 'due at 100 for a, not yet for b');
  t.equal(schedule.stored('a', 99), false, 'the count starts over after a trim');
  t.equal(schedule.stored('c', 500), true, 'one large response is due at once');
  t.same(schedule.takeAll().sort(), ['a', 'b'], 'the hourly prune takes the keys stored for since their last trim');
  t.same(schedule.takeAll(), [], 'and they are forgotten');
  t.equal(new TrimSchedule(3).stored('d', 1), true, 'a budget below eight bytes trims at every response');
});

import t from 'tap';
import { cycleOf } from '../../src/billing/cycle.js';

/** Billing cycles are UTC calendar months; the last one found is kept, so calls that alternate between months must still get their own. */

t.test('a call belongs to the UTC month it was admitted in, whatever month the call before it fell in', async (t) => {
  const endOfJanuary = Date.UTC(2026, 0, 31, 23, 59, 59, 999);
  const february = Date.UTC(2026, 1, 1);
  const lastOfYear = Date.UTC(2026, 11, 31, 23, 59, 59, 999);
  const seen = [endOfJanuary, february, endOfJanuary, lastOfYear, Date.UTC(2027, 0, 1), Date.UTC(2026, 1, 28, 12)].map((ms) => cycleOf(ms));
  t.same(
    seen.map((cycle) => cycle.id),
    ['2026-01', '2026-02', '2026-01', '2026-12', '2027-01', '2026-02'],
  );
  t.same(seen[1], { id: '2026-02', start: february, end: Date.UTC(2026, 2, 1) }, 'bounds: the first instant of the month and of the next');
  t.equal(cycleOf(february + 1000), cycleOf(february + 2000), 'two calls in one month share its cycle');
});

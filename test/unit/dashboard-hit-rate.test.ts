import t from 'tap';
import { hitRate } from '../../src/dashboard/ui/format.js';

/** The usage page's cache hit rate per model: cached prompt tokens over prompt tokens (docs/dashboard.md). */

t.test('cached over prompt tokens, one decimal; a dash when nothing was prompted', async (t) => {
  t.equal(hitRate(6, 18), '33.3 %');
  t.equal(hitRate(0, 2), '0.0 %');
  t.equal(hitRate(9, 9), '100.0 %');
  t.equal(hitRate(0, 0), '—');
});

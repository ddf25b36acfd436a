import t from 'tap';
import { mintId } from '../src/reference/ids.js';

t.test('ids: the prefix, then 24 letters and digits, never repeated across refills of the random pool', async (t) => {
  const seen = new Set<string>();
  const malformed: string[] = [];
  // 2,000 ids span several refills of the 256-id pool.
  for (let i = 0; i < 2000; i++) {
    const id = mintId('resp_');
    if (!/^resp_[A-Za-z0-9]{24}$/.test(id)) malformed.push(id);
    seen.add(id.slice(5));
  }
  t.same(malformed, [], 'every id is the prefix and 24 letters and digits');
  t.equal(seen.size, 2000, 'every id is new');
  const counts = new Map<string, number>();
  for (const id of seen) for (const c of id) counts.set(c, (counts.get(c) ?? 0) + 1);
  t.equal(counts.size, 62, 'every character of the alphabet turns up (the bytes are random, not a counter)');
});

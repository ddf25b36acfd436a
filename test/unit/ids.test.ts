import t from 'tap';
import { mintId, mintTimedId } from '../../src/reference/ids.js';

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

t.test('timed ids: the prefix, the time in 12 hex digits, then 24 random characters; later ids sort after earlier ones', async (t) => {
  const at = Date.UTC(2026, 10, 23, 17, 0, 0);
  const id = mintTimedId('resp_', at);
  t.match(id, /^resp_[0-9a-f]{12}[A-Za-z0-9]{24}$/);
  t.equal(parseInt(id.slice(5, 17), 16), at, 'the hex digits are the time in ms');
  const ids = [at, at + 1, at + 999, at + 60_000, Date.UTC(2100, 0, 1)].map((ms) => mintTimedId('resp_', ms));
  t.same([...ids].reverse().sort(), ids, 'byte order is time order (as both stores compare the key)');
  t.equal(mintTimedId('x_', -5).slice(2, 14), '000000000000', 'a time before the epoch is clamped, never a minus sign');
  t.not(mintTimedId('resp_', at), mintTimedId('resp_', at), 'two ids of one millisecond still differ');
});

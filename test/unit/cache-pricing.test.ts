import t from 'tap';
import { loadCatalogue, type ModelEntry } from '../../src/catalogue/catalogue.js';
import { costOf } from '../../src/catalogue/cost.js';

/**
 * The upstream cost of a prompt split by the vendor's cache (docs/caching.md#pricing), to the
 * nano-dollar, on alpha-sonnet-4.6 of config/models.yaml: input 0.60 per 1M (600 nanos a token),
 * cache_read 0.06 (60), cache_write 0.75 (750), cache_write_1h 1.20 (1 200), output 3.00 (3 000),
 * output charged 1.50 (1 500), input charged 0.
 */
const sonnet = loadCatalogue('config/models.yaml').resolve('alpha-sonnet-4.6') as ModelEntry;

t.test('each part of the prompt at its own rate, one-hour writes at theirs', async (t) => {
  const usage = { promptTokens: 20, completionTokens: 5, cachedTokens: 4, cacheWriteTokens: 10, cacheWrite1hTokens: 6 };
  // 6 plain × 600 + 4 read × 60 + 4 five-minute writes × 750 + 6 one-hour writes × 1 200 + 5 output × 3 000
  t.same(costOf(sonnet, usage), { list: 3_600 + 240 + 3_000 + 7_200 + 15_000, charged: 7_500 });
  t.same(costOf(sonnet, { ...usage, cacheWrite1hTokens: 0 }).list, 3_600 + 240 + 7_500 + 15_000, 'no one-hour write: all ten at the five-minute rate');
  t.same(costOf(sonnet, { ...usage, cacheWrite1hTokens: 10 }).list, 3_600 + 240 + 12_000 + 15_000, 'all ten for an hour');
});

t.test("a vendor's one-hour count never counts for more than its writes", async (t) => {
  const usage = { promptTokens: 20, completionTokens: 0, cacheWriteTokens: 3, cacheWrite1hTokens: 9 };
  t.same(costOf(sonnet, usage).list, 17 * 600 + 3 * 1_200, 'three one-hour writes, the rest plain input');
});

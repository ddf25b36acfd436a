import { readFileSync } from 'node:fs';
import t from 'tap';
import { policyAllowing } from '../../src/net/address-policy.js';
import { BudgetExhausted, ByteBudget } from '../../src/net/byte-budget.js';
import { GuardedFetcher } from '../../src/net/guarded-fetch.js';
import { CA_FILE, startImageServer } from '../helpers/image-server.js';

const MIB = 1024 * 1024;

t.test('the byte budget: immediate when it fits, first come first served, a bounded wait, never more than the limit', async (t) => {
  const budget = new ByteBudget(10, 100);
  const a = await budget.acquire(6);
  t.equal(budget.held, 6);
  const waitingB = budget.acquire(5);
  const waitingC = budget.acquire(1);
  await new Promise((resolve) => setTimeout(resolve, 10));
  t.equal(budget.held, 6, 'a reservation that does not fit waits, and one behind it waits its turn even if it would fit');
  a.release();
  a.release();
  const [b, c] = await Promise.all([waitingB, waitingC]);
  t.equal(budget.held, 6, 'the release lets both through, in order; a second release gives nothing twice');
  b.shrinkTo(2);
  t.equal(budget.held, 3, 'shrinking gives back the difference');
  b.shrinkTo(4);
  t.equal(b.bytes, 2, 'and never grows');

  const started = Date.now();
  const big = await budget.acquire(8).catch((e: unknown) => e);
  t.type(big, BudgetExhausted, 'no room within the wait: refused');
  t.ok(Date.now() - started >= 90, 'after the wait');
  t.match((big as Error).message, 'no room for 0 MiB more within 100 ms: the 0 MiB held at once by all calls together');
  t.match(await budget.acquire(11).catch((e: unknown) => e), { name: 'BudgetExhausted', message: /is more than the/ }, 'more than the limit: refused at once');

  const abort = new AbortController();
  const cancelled = budget.acquire(8, abort.signal).catch((e: unknown) => e);
  abort.abort(new Error('cancelled'));
  t.match(await cancelled, { message: 'cancelled' }, 'an abandoned wait ends at once');
  b.release();
  c.release();
  t.equal(budget.held, 0, 'everything given back');
});

t.test('the guarded fetcher reserves before reading and gives back on every failure', async (t) => {
  const server = await startImageServer(t);
  const ca = readFileSync(CA_FILE);
  // Room for one image of the largest size (reserved when no Content-Length is given).
  const budget = new ByteBudget(12 * MIB, 100);
  const fetcher = new GuardedFetcher({ ca, policy: policyAllowing(['127.0.0.1/32']), budget });

  const pending = fetcher.fetch(`${server.origin}/blob/${3 * MIB}?ms=200`);
  await new Promise((resolve) => setTimeout(resolve, 100));
  t.equal(budget.held, 3 * MIB, 'the declared length is reserved while the body is still arriving');
  const image = await pending;
  t.equal(image.data.length, 3 * MIB);
  t.equal(image.lease.bytes, 3 * MIB, 'the image holds its bytes until released');
  image.lease.release();
  t.equal(budget.held, 0);

  const unlabelled = await fetcher.fetch(`${server.origin}/unlabelled`);
  t.equal(unlabelled.lease.bytes, unlabelled.data.length, 'without a Content-Length the most an image may be was reserved, then the rest given back');
  unlabelled.lease.release();

  for (const path of ['/big', '/text', '/big-declared', '/missing']) {
    await t.rejects(fetcher.fetch(`${server.origin}${path}`), { name: 'ImageFetchError' }, path);
    t.equal(budget.held, 0, `${path}: nothing left held`);
  }

  const holder = await budget.acquire(10 * MIB);
  const refused = await fetcher.fetch(`${server.origin}/blob/${3 * MIB}`).catch((e: unknown) => e);
  t.type(refused, BudgetExhausted, 'no room: the fetch is refused as such, not as a bad image');
  t.equal(budget.held, 10 * MIB, 'and holds nothing');
  holder.release();
});

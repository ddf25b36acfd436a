import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import t, { type Test } from 'tap';
import {
  GRANT_LIFE_MS,
  GrantedAdmissions,
  LEAST_PER_GRANT,
  LIMIT_SHARE,
  MOST_KINDS,
  MOST_PER_GRANT,
  SPARE_PER_ADMISSION,
} from '../../src/store/granted-admissions.js';
import type { Grant, GrantInput, GrantStore } from '../../src/store/grants.js';
import type { RateStore, RateTake } from '../../src/store/limits.js';
import type { LedgerStore, ReserveInput } from '../../src/store/store.js';

/**
 * Admissions granted ahead (src/store/granted-admissions.ts), against a scripted grant store: when
 * and how much is asked for, which calls use what was granted (and never twice), what goes to the
 * store as before, and what is released.
 */

class ScriptedGrants implements GrantStore {
  readonly asked: GrantInput[] = [];
  readonly released: number[] = [];
  fail = false;
  private next = 1_000;
  async grant(input: GrantInput): Promise<Grant> {
    this.asked.push(input);
    if (this.fail) throw new Error('the store is down');
    const ids = Array.from({ length: input.count }, () => (input.reserve ? this.next++ : null));
    return { ids, remaining: 100, resetMs: 30_000 };
  }
  async release(ids: readonly number[]): Promise<void> {
    this.released.push(...ids);
  }
}

/** A ledger and a rate store whose admissions count themselves: reservation ids from 1. */
function innerStores(): { ledger: LedgerStore; rates: RateStore; calls: { reserve: number; takes: number } } {
  const calls = { reserve: 0, takes: 0 };
  const unused = (): never => {
    throw new Error('not used here');
  };
  const reserve = async (input: ReserveInput) => ({
    admitted: true as const,
    reservation: { id: ++calls.reserve, keyId: input.keyId, cycle: input.cycle, nanos: input.nanos, upstreamNanos: input.upstreamNanos },
  });
  const ledger: LedgerStore = {
    reserve,
    reserveAfterTake: async (_take, input) => ({ waitMs: 0, remaining: 5, resetMs: 1_000, result: await reserve(input) }),
    record: unused,
    release: unused,
    releaseInstance: unused,
    renewLeases: unused,
    sweepExpiredLeases: unused,
    cycleSpend: unused,
    dailyUsage: unused,
    keyActivity: unused,
  };
  const rates: RateStore = { take: async () => (calls.takes++, { waitMs: 0, remaining: 5, resetMs: 1_000 }), sweep: unused };
  return { ledger, rates, calls };
}

const take = (now: number, limit = 1_000_000, keyId = 'k1'): RateTake => ({ keyId, limit, windowMs: 60_000, now });
const reserve = (now: number, nanos = 100, keyId = 'k1'): ReserveInput => ({
  keyId,
  cycle: '2026-11',
  nanos,
  upstreamNanos: 5,
  ceilingNanos: 10 ** 12,
  upstreamLimitNanos: null,
  instance: 'i1',
  now,
  expiresAt: now + 120_000,
});
const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

function setup(t: Test) {
  const grants = new ScriptedGrants();
  const errors: Error[] = [];
  const granted = new GrantedAdmissions(grants, (error) => errors.push(error));
  t.teardown(() => granted.close());
  const inner = innerStores();
  return { grants, errors, granted, inner, ledger: granted.ledger(inner.ledger), rates: granted.rates(inner.rates) };
}

t.test('a busy kind asks for a quarter of its calls per grant life, then its calls use what was granted, each once', async (t) => {
  const { grants, ledger, inner } = setup(t);
  const now = 5_000;
  for (let i = 0; i < 4; i++) await ledger.reserveAfterTake(take(now), reserve(now));
  t.equal(grants.asked.length, 0, 'four calls: fewer than two per grant');
  await ledger.reserveAfterTake(take(now), reserve(now));
  t.equal(grants.asked.length, 1, 'the fifth asks for two');
  t.match(grants.asked[0], { count: 2, spare: 2 * SPARE_PER_ADMISSION, leadMs: GRANT_LIFE_MS, take: { now }, reserve: { nanos: 100 } });
  await settle();
  const answers = [await ledger.reserveAfterTake(take(now + 1), reserve(now + 1)), await ledger.reserveAfterTake(take(now + 2), reserve(now + 2))];
  t.same(answers.map((a) => a.result?.admitted && a.result.reservation.id).sort(), [1_000, 1_001], 'the two granted reservations, one per call');
  t.same(
    answers.map((a) => a.waitMs),
    [0, 0],
  );
  t.equal(inner.calls.reserve, 5, 'those two went to no store');
  for (let i = 0; i < 200; i++) await ledger.reserveAfterTake(take(now + 3), reserve(now + 3));
  await settle();
  t.ok(
    grants.asked.every((a) => a.count <= MOST_PER_GRANT),
    `at most ${MOST_PER_GRANT} per grant`,
  );
  const used = grants.asked.reduce((sum, a) => sum + a.count, 0);
  t.ok(inner.calls.reserve < 210 - used + MOST_PER_GRANT, `most calls used a granted admission (${inner.calls.reserve} of 210 to the store)`);
});

t.test('what was granted serves only its kind, only within its life, and is released after it', async (t) => {
  const { grants, ledger, inner } = setup(t);
  const now = 10_000;
  for (let i = 0; i < 5; i++) await ledger.reserve(reserve(now));
  await settle();
  t.equal(grants.asked[0]?.take, null, 'a ceiling alone: the grant takes no rate slot');
  const before = inner.calls.reserve;
  await ledger.reserve(reserve(now, 200));
  await ledger.reserve(reserve(now, 100, 'k2'));
  await ledger.reserveAfterTake(take(now), reserve(now));
  t.equal(inner.calls.reserve, before + 3, 'another amount, another key, or a rate cap too: another kind');
  await ledger.reserve(reserve(now - 1));
  await ledger.reserve(reserve(now + GRANT_LIFE_MS + 1));
  t.equal(inner.calls.reserve, before + 5, 'a call admitted before the grant, or after its end, goes to the store');
  await sleep(GRANT_LIFE_MS + 100);
  const granted = grants.asked.flatMap((a, i) => Array.from({ length: a.count }, (_, j) => 1_000 + 2 * i + j));
  t.same(
    grants.asked.map((a) => a.count),
    [2, 2],
    'two grants of two: the first, and one for the call after the end',
  );
  t.same(grants.released.sort(), granted, 'none used: all released after the grant life');
});

t.test('a rate cap: takes granted too; a cap under 128 never grants', async (t) => {
  const { grants, rates, inner } = setup(t);
  for (let i = 0; i < 40; i++) await rates.take(take(0, 127));
  t.equal(grants.asked.length, 0, 'a cap of 127: one by one');
  for (let i = 0; i < 40; i++) await rates.take(take(0, 128, 'k2'));
  await settle();
  t.ok(grants.asked.length > 0 && grants.asked.every((a) => a.count === 2), 'a cap of 128: two at a time (1/64 of it)');
  t.equal(grants.asked[0]?.reserve, null);
  const before = inner.calls.takes;
  const served = await rates.take(take(10, 128, 'k2'));
  t.equal(inner.calls.takes, before, 'served from the grant');
  t.equal(served.waitMs, 0);
  t.ok(served.remaining >= 100 && served.remaining <= 101, "the grant's headroom, with its admissions not used yet counted as room");
  t.equal(served.resetMs, 30_000 - 10, 'its reset as the grant told it, 10 ms on');
});

t.test('calls served from a grant go on together at the end of their turn (check phase), not each at once', async (t) => {
  const { grants, ledger, rates } = setup(t);
  for (let i = 0; i < 40; i++) await ledger.reserveAfterTake(take(0), reserve(0));
  for (let i = 0; i < 40; i++) await ledger.reserve(reserve(0, 100, 'k3'));
  for (let i = 0; i < 40; i++) await rates.take(take(0, 128, 'k2'));
  await settle();
  t.equal(new Set(grants.asked.map((a) => `${a.take?.keyId}/${a.reserve?.keyId}`)).size, 3, 'the three kinds have admissions on hand');
  const order: string[] = [];
  setImmediate(() => order.push('a turn-end callback queued before the calls'));
  const calls = [
    ledger.reserveAfterTake(take(1), reserve(1)).then(() => order.push('take and reservation')),
    ledger.reserve(reserve(1, 100, 'k3')).then(() => order.push('reservation alone')),
    rates.take(take(1, 128, 'k2')).then(() => order.push('take alone')),
  ];
  setImmediate(() => order.push('a turn-end callback queued after the calls'));
  await Promise.all(calls);
  await settle();
  t.same(order.slice(0, 1), ['a turn-end callback queued before the calls'], 'none went on before the turn ended');
  t.same(order.at(-1), 'a turn-end callback queued after the calls', 'and all of them in one check-phase callback, before later ones');
  t.equal(order.length, 5);
});

t.test('a failed grant is told and pauses its kind for a grant life; the calls go on', async (t) => {
  const { grants, errors, ledger, inner } = setup(t);
  grants.fail = true;
  for (let i = 0; i < 20; i++) await ledger.reserve(reserve(0));
  await settle();
  t.equal(grants.asked.length, 1, 'asked once');
  t.match(errors, [{ message: 'the store is down' }]);
  t.equal(inner.calls.reserve, 20, 'every call admitted by the store');
  for (let i = 0; i < 10; i++) await ledger.reserve(reserve(GRANT_LIFE_MS));
  t.equal(grants.asked.length, 2, 'asked again after a grant life');
});

t.test('closing releases what is on hand; kinds beyond the bound forget the idle', async (t) => {
  const { grants, granted, ledger } = setup(t);
  for (let i = 0; i < 5; i++) await ledger.reserve(reserve(0));
  await settle();
  for (let k = 0; k < MOST_KINDS + 10; k++) await ledger.reserve(reserve(0, 100, `other-${k}`));
  await ledger.reserve(reserve(0));
  await settle();
  t.ok((granted as unknown as { kinds: Map<string, unknown> }).kinds.size <= MOST_KINDS, 'no more kinds than the bound');
  t.equal(grants.released.length, 0);
  await granted.close();
  t.ok(grants.released.includes(1_000) && !grants.released.includes(1_001), 'the busy kind was kept: the one its call used is not released, the other is');
});

t.test("the docs' figures are the code's", async (t) => {
  const money = readFileSync('docs/money.md', 'utf8').replace(/\s+/g, ' ');
  const scaleOut = readFileSync('docs/scale-out.md', 'utf8');
  t.equal(GRANT_LIFE_MS, 1_000);
  t.match(money, "the grant's end, 1 s after it");
  t.match(money, `${LEAST_PER_GRANT} to ${MOST_PER_GRANT}`);
  t.match(money, `at most 1/${LIMIT_SHARE} of the rate cap at once (none under an \`rpm_limit\` of ${LEAST_PER_GRANT * LIMIT_SHARE})`);
  t.match(money, `the grant and ${SPARE_PER_ADMISSION} calls more per admission granted`);
  t.match(money, `a grant and half the one before, ${MOST_PER_GRANT * 1.5}, each per kind of call`);
  t.match(scaleOut, `at most ${MOST_PER_GRANT} per grant, ${MOST_KINDS.toLocaleString('en-US')} kinds of call remembered per instance`);
});

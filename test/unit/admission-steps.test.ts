import t from 'tap';
import { AdmissionSteps } from '../../src/chain/admission-steps.js';
import { GatewayError } from '../../src/http/errors.js';
import { admit } from '../../src/pipeline/admission.js';
import type { RateTake } from '../../src/store/limits.js';
import type { ReserveInput, ReserveResult, Store, TakenReservation } from '../../src/store/store.js';
import { chainOf, detachedCall } from '../helpers/pipeline-parts.js';

/**
 * The admission steps (src/chain/admission-steps.ts): a call with a rate cap and a ceiling makes
 * one store call for both, the take decided first; either alone makes its own; the verdicts run
 * in that order and refuse by throwing; the steps run after the last request hook.
 */

const TAKE: RateTake = { keyId: 'k', limit: 2, windowMs: 60_000, now: 5 };
const RESERVE: ReserveInput = {
  keyId: 'k',
  cycle: '2026-11',
  nanos: 10,
  upstreamNanos: 0,
  ceilingNanos: 100,
  upstreamLimitNanos: null,
  instance: 'gw',
  now: 5,
  expiresAt: 100,
};
const ADMITTED: ReserveResult = { admitted: true, reservation: { id: 7, keyId: 'k', cycle: '2026-11', nanos: 10, upstreamNanos: 0 } };

/** A store that records which of its admission calls were made, answering `waitMs` to takes. */
function recordingStore(waitMs: number, calls: string[]): Store {
  const taken = (): TakenReservation => ({ waitMs, remaining: 0, resetMs: waitMs, result: waitMs === 0 ? ADMITTED : null });
  return {
    rates: { take: async (take: RateTake) => (calls.push(`take ${take.keyId}`), { waitMs, remaining: 0, resetMs: waitMs }) },
    ledger: {
      reserve: async (input: ReserveInput) => (calls.push(`reserve ${input.keyId}`), ADMITTED),
      reserveAfterTake: async (take: RateTake, input: ReserveInput) => (calls.push(`take+reserve ${take.keyId} ${input.nanos}`), taken()),
    },
  } as unknown as Store;
}

t.test("a take and a reservation: one store call, the take's verdict first", async (t) => {
  const calls: string[] = [];
  const verdicts: string[] = [];
  const steps = new AdmissionSteps();
  steps.queueTake(TAKE, ({ waitMs }) => void verdicts.push(`take ${waitMs}`));
  steps.queueReservation(
    () => RESERVE,
    (result) => void verdicts.push(`reserve ${result.admitted}`),
  );
  await steps.run(recordingStore(0, calls));
  t.same(calls, ['take+reserve k 10']);
  t.same(verdicts, ['take 0', 'reserve true']);
  await steps.run(recordingStore(0, calls));
  t.same(calls, ['take+reserve k 10'], 'run once: a second run has nothing left to do');
});

t.test("a refused take: its error, and the reservation's verdict never runs", async (t) => {
  const verdicts: string[] = [];
  const steps = new AdmissionSteps();
  steps.queueTake(TAKE, ({ waitMs: wait }) => {
    throw new GatewayError(429, `wait ${wait}`);
  });
  steps.queueReservation(
    () => RESERVE,
    () => void verdicts.push('reserve'),
  );
  await t.rejects(steps.run(recordingStore(1500, [])), { status: 429, message: 'wait 1500' });
  t.same(verdicts, []);
});

t.test('a take that refused but whose verdict let the call through stops it anyway', async (t) => {
  const steps = new AdmissionSteps();
  steps.queueTake(TAKE, () => undefined);
  steps.queueReservation(
    () => RESERVE,
    () => undefined,
  );
  await t.rejects(steps.run(recordingStore(1500, [])), /the rate cap refused a call its verdict let through/);
});

t.test('either step alone makes its own store call', async (t) => {
  const calls: string[] = [];
  const takeOnly = new AdmissionSteps();
  takeOnly.queueTake(TAKE, () => undefined);
  await takeOnly.run(recordingStore(0, calls));
  const reserveOnly = new AdmissionSteps();
  reserveOnly.queueReservation(
    () => RESERVE,
    () => undefined,
  );
  await reserveOnly.run(recordingStore(0, calls));
  await new AdmissionSteps().run(recordingStore(0, calls));
  t.same(calls, ['take k', 'reserve k'], 'and no step, no call');
});

t.test('admit(): the steps run after the last request hook', async (t) => {
  const order: string[] = [];
  const call = detachedCall();
  const chain = chainOf(
    { onRequest: (c) => c.admission.queueTake(TAKE, () => void order.push('take verdict')) },
    {
      onRequest: (c) => {
        order.push('last hook');
        c.admission.queueReservation(
          () => RESERVE,
          () => void order.push('reserve verdict'),
        );
      },
    },
  );
  const body = Buffer.from(JSON.stringify({ model: 'gamma-5.4', messages: [{ role: 'user', content: 'x' }] }));
  const reader = { checkDeclaredLength: () => undefined, read: async () => ({ bytes: body, release: () => undefined }) };
  await admit(call, chain, reader, recordingStore(0, []), () => undefined);
  t.same(order, ['last hook', 'take verdict', 'reserve verdict']);
});

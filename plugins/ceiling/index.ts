import { cycleOf, definePlugin, formatUsd, GatewayError, type BillingCycle, type CycleSpend, type Nanos } from '../../src/plugin-api.js';
import { Leases } from './leases.js';
import { reservationFor } from './reservation.js';

/**
 * `ceiling`: a key's monthly spend ceiling (calendar month, UTC). Reserve, then settle: a call
 * is admitted only if its reservation (reservation.ts) fits in ceiling − spent − what calls in
 * flight hold, decided in one store transaction that is atomic across gateway instances. The
 * ledger plugin settles the reservation to the real cost in the transaction of the call's row;
 * what no row settled (the call never reached an upstream) is released here. A reservation is a
 * lease (leases.ts): renewed while the call runs, it stops counting `server.lease_ms` after its
 * instance died. Reservations of this instance left by a crash are released at start.
 */

function ceilingReached(ceiling: Nanos, cycle: BillingCycle, spend: CycleSpend, needed: Nanos): GatewayError {
  const spent = `spent $${formatUsd(spend.spent)}, held by requests in flight $${formatUsd(spend.reserved)}`;
  const reason =
    spend.spent >= ceiling
      ? 'has been reached'
      : `leaves too little for this request, which may cost up to $${formatUsd(needed)} (lower max_tokens to need less)`;
  return new GatewayError(
    402,
    `The monthly spend ceiling of this API key, $${formatUsd(ceiling)}, ${reason}: ${spent}. ` +
      `The cycle ends at ${new Date(cycle.end).toISOString()}.`,
  );
}

export default definePlugin({
  name: 'ceiling',
  after: ['auth', 'model-normalise'],
  // Spend is what the ledger records: without it after us, a ceiling would never be reached.
  before: ['ledger'],
  async setup({ store, config, clock, log }) {
    const instance = config.server.instance_id;
    const released = await store.ledger.releaseInstance(instance);
    if (released > 0) log.warn({ released, instance }, 'released spend reservations left by an earlier run of this instance');
    const leases = new Leases(store, clock, config.server.lease_ms, log);
    return {
      async onRequest(call) {
        const { key, model } = call;
        if (!call.endpoint.upstream || !key || !model || key.monthlyCeilingNanos === null) return;
        const cycle = cycleOf(call.admittedAt);
        const nanos = reservationFor(call, model);
        const result = await store.ledger.reserve({
          keyId: key.id,
          cycle: cycle.id,
          nanos,
          ceilingNanos: key.monthlyCeilingNanos,
          instance,
          now: call.admittedAt,
          expiresAt: leases.expiry(call.admittedAt),
        });
        if (!result.admitted) throw ceilingReached(key.monthlyCeilingNanos, cycle, result, nanos);
        call.reservation = result.reservation;
        leases.hold(call, result.reservation.id);
      },
      async onComplete(call) {
        leases.drop(call);
        const held = call.reservation;
        if (!held) return;
        call.reservation = null;
        await store.ledger.release(held.id);
      },
      close() {
        leases.close();
      },
    };
  },
});

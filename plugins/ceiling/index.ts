import {
  cycleOf,
  definePlugin,
  formatUsd,
  GatewayError,
  type BillingCycle,
  type Cost,
  type CycleSpend,
  type KeyRecord,
  type SpendLimit,
} from '../../src/plugin-api.js';
import { Leases } from './leases.js';
import { reservationFor } from './reservation.js';

/**
 * `ceiling`: a key's two monthly limits (calendar month, UTC) — its spend ceiling (what it is
 * charged) and its upstream cost limit (what its calls cost the operator at the vendors' list
 * prices, prompt tokens included). Reserve, then settle: a call is admitted only if its
 * reservation (reservation.ts) fits every limit the key sets, in limit − spent − what calls in
 * flight hold, decided in one store transaction that is atomic across gateway instances. The
 * ledger plugin settles the reservation to the real costs in the transaction of the call's
 * row; what no row settled (the call never reached an upstream) is released here. A reservation
 * is a lease (leases.ts): renewed while the call runs, it stops counting `server.lease_ms` after
 * its instance died. Reservations of this instance left by a crash are released at start.
 */

/** One refusing limit, in words: the limit, why, and the figures it was decided on. */
function refusal(limit: SpendLimit, key: KeyRecord, spend: CycleSpend, needed: Cost): string {
  const ceiling = limit === 'ceiling';
  const amount = (ceiling ? key.monthlyCeilingNanos : key.monthlyUpstreamLimitNanos) ?? 0;
  const spent = ceiling ? spend.spent : spend.upstreamSpent;
  const held = ceiling ? spend.reserved : spend.upstreamReserved;
  const reason =
    spent >= amount
      ? 'has been reached'
      : ceiling
        ? `leaves too little for this request, which may cost up to $${formatUsd(needed.charged)} (lower max_tokens to need less)`
        : `leaves too little for this request, which may cost up to $${formatUsd(needed.list)} upstream (lower max_tokens or send a smaller request to need less)`;
  const name = ceiling ? 'monthly spend ceiling' : 'monthly upstream cost limit';
  const what = ceiling ? 'spent' : "upstream cost at the vendors' list prices";
  return `The ${name} of this API key, $${formatUsd(amount)}, ${reason}: ${what} $${formatUsd(spent)}, held by requests in flight $${formatUsd(held)}.`;
}

/** What a refusal by the upstream cost limit alone is answered with; the ceiling keeps the 402's own `monthly_cap_exceeded`. */
const UPSTREAM_LIMIT_CODE = 'monthly_upstream_limit_exceeded';

/**
 * The 402 of a refused admission. Its code names the limit: `monthly_cap_exceeded` whenever the
 * ceiling refused (alone or with the upstream limit: what callers already handle), else
 * `monthly_upstream_limit_exceeded`. The message gives every refusing limit's figures.
 */
function limitReached(refusedBy: readonly SpendLimit[], key: KeyRecord, cycle: BillingCycle, spend: CycleSpend, needed: Cost): GatewayError {
  const reasons = refusedBy.map((limit) => refusal(limit, key, spend, needed));
  const code = refusedBy.includes('ceiling') ? undefined : UPSTREAM_LIMIT_CODE;
  return new GatewayError(402, `${reasons.join(' ')} The cycle ends at ${new Date(cycle.end).toISOString()}.`, code ? { code } : {});
}

export default definePlugin({
  name: 'ceiling',
  needs: ['key', 'model'],
  // Spend is what the ledger records: without it after us, a ceiling would never be reached.
  before: ['ledger'],
  async setup({ store, config, clock, log }) {
    const instance = config.server.instance_id;
    const released = await store.ledger.releaseInstance(instance);
    if (released > 0) log.warn({ released, instance }, 'released spend reservations left by an earlier run of this instance');
    const leases = new Leases(store, clock, config.server.lease_ms, log);
    return {
      onRequest(call) {
        const { key, model } = call;
        if (key.monthlyCeilingNanos === null && key.monthlyUpstreamLimitNanos === null) return;
        const cycle = cycleOf(call.admittedAt);
        // An admission step (src/chain/admission-steps.ts): with the rate cap's take, one round trip.
        // Its amount is reckoned when it runs, after every request hook: the retry plugin, later in
        // the chain, names the sibling that may answer instead (reservation.ts).
        call.admission.queueReservation(
          () => {
            const needed = reservationFor(call, model);
            return {
              keyId: key.id,
              cycle: cycle.id,
              nanos: needed.charged,
              upstreamNanos: needed.list,
              ceilingNanos: key.monthlyCeilingNanos,
              upstreamLimitNanos: key.monthlyUpstreamLimitNanos,
              instance,
              now: call.admittedAt,
              expiresAt: leases.expiry(call.admittedAt),
            };
          },
          (result, input) => {
            if (!result.admitted) throw limitReached(result.refusedBy, key, cycle, result, { charged: input.nanos, list: input.upstreamNanos });
            call.reservation = result.reservation;
            leases.hold(call, result.reservation.id);
          },
        );
      },
      async onComplete(call) {
        leases.drop(call);
        const held = call.reservation;
        if (!held) return;
        call.reservation = null;
        // Once the store did not answer this call, a release would wait out the timeout again
        // before the caller hears anything: it is sent without waiting, and the lease ends it if it fails.
        const released = store.ledger.release(held.id);
        if (!call.storeUnavailable) return released;
        released.catch((error: unknown) => log.warn({ err: error, reservation: held.id }, 'release failed; the lease will end the reservation'));
      },
      close() {
        leases.close();
      },
    };
  },
});

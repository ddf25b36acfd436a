import type { RateAnswer, RateTake } from '../store/limits.js';
import type { ReserveInput, ReserveResult, Store } from '../store/store.js';

/** What a step's plugin does with the store's answer: throws to refuse the call. */
type Verdict<O> = (outcome: O) => void;

interface Step<I, O> {
  input: I;
  verdict: Verdict<O>;
}

/**
 * The store steps of a call's admission: the rate cap's take and the ceiling's reservation.
 * Request hooks queue them (the rate-limit and ceiling plugins); the pipeline runs them after
 * the last request hook (src/pipeline/admission.ts), in this order, and a call that has both
 * makes one store round trip for them instead of two — the take, then the reservation only if
 * the take admitted, in one transaction. Each verdict runs with its step's answer and refuses
 * the call by throwing, so the take's 429 comes before the ceiling's 402, as it would one
 * hook after the other; a call the take refused never holds a reservation.
 */
export class AdmissionSteps {
  private take: Step<RateTake, RateAnswer> | null = null;
  private reserve: { input: () => ReserveInput; verdict: (result: ReserveResult, input: ReserveInput) => void } | null = null;

  /** Queues the rate cap's take; `verdict` gets its answer: `waitMs` 0 (admitted) or the ms until a call would be, and the headroom after it. */
  queueTake(input: RateTake, verdict: Verdict<RateAnswer>): void {
    this.take = { input, verdict };
  }

  /**
   * Queues the ceiling's reservation; `verdict` gets the store's decision and the input decided
   * on. `input` is called when the steps run, after every request hook, so that what a later hook
   * tells the call counts (the retry plugin's fallback sibling, src/chain/call.ts).
   */
  queueReservation(input: () => ReserveInput, verdict: (result: ReserveResult, input: ReserveInput) => void): void {
    this.reserve = { input, verdict };
  }

  /** Runs the queued steps (once); a verdict that throws refuses the call with its error. */
  async run(store: Store): Promise<void> {
    const { take, reserve } = this;
    this.take = null;
    this.reserve = null;
    if (!reserve) {
      if (take) take.verdict(await store.rates.take(take.input));
      return;
    }
    const input = reserve.input();
    if (!take) {
      reserve.verdict(await store.ledger.reserve(input), input);
      return;
    }
    const answer = await store.ledger.reserveAfterTake(take.input, input);
    take.verdict(answer);
    // A take that refused was answered by throwing; without a reservation the call must not go on.
    if (!answer.result) throw new Error('the rate cap refused a call its verdict let through');
    reserve.verdict(answer.result, input);
  }
}

import type { RateTake } from './limits.js';
import type { ReserveInput } from './ledger.js';

/**
 * What an instance asks for when it takes admissions ahead of its calls (granted-admissions.ts):
 * up to `count` admissions of one kind, each the rate cap's take (if `take`) and the ceiling's
 * reservation (if `reserve` sets a limit), decided in one transaction that is atomic across
 * instances, as the calls' own admissions would be.
 */
export interface GrantInput {
  /** The rate cap's take (its `now` the grant's); null: the key has none. */
  take: RateTake | null;
  /** The reservation each admission holds; null: the key has no money limit. */
  reserve: ReserveInput | null;
  count: number;
  /** Calls of headroom the grant must leave: in the rate cap's window and under each money limit. */
  spare: number;
  /** From the grant to the end of its admissions: the rate cap counts each as made at that end. */
  leadMs: number;
}

/** What a grant gave. */
export interface Grant {
  /** One entry per admission granted: its reservation's id, or null when no money limit is set. */
  ids: Array<number | null>;
  /** The rate cap's headroom after the grant (RateAnswer; 0 and 0 without a take): what its admissions tell their calls. */
  remaining: number;
  resetMs: number;
}

/** Admissions granted ahead (PostgreSQL; SQLite admits in the process and has nothing to save). */
export interface GrantStore {
  /**
   * Grants what fits, all or part of `count` (none when the headroom is narrower than the
   * spare), with the rate cap's headroom after it.
   */
  grant(input: GrantInput): Promise<Grant>;
  /** Drops granted reservations no call used (one kind's: one key's), and what they held from their cycle's figures. */
  release(reservationIds: readonly number[]): Promise<void>;
}

/**
 * Limits that hold across every gateway instance sharing the store: the per-key rate cap and
 * the failed-admin-token lockout. Times are epoch ms as the instances' clocks give them (keep
 * the machines' clocks in sync: a clock ahead judges windows early).
 */

export interface RateTake {
  keyId: string;
  /** Admissions allowed in any window (the key's rpm_limit, or the default). */
  limit: number;
  windowMs: number;
  now: number;
}

/**
 * A take's answer: the decision, and the key's headroom after it, read in the same transaction
 * (the rate-limit headers of docs/api-contract.md#rate-limit-headers).
 */
export interface RateAnswer {
  /** 0: admitted (and counted); else the ms until a call would be. */
  waitMs: number;
  /** Calls the window admits at once after this one (0 when refused). */
  remaining: number;
  /**
   * Ms until the oldest admission the window counts against the limit leaves it: when the
   * remaining count next rises (for a refusal, `waitMs`); 0 when the window counts none.
   */
  resetMs: number;
}

/**
 * The exact sliding-window cap, at O(1) per call: a key's admissions are numbered, and slot
 * `n % R` holds the time of admission n, R being the largest limit a take of the key brought (the
 * ring never shrinks). Admission n under limit L ≤ R is allowed iff admission n − L is absent or
 * its time left the window — so no window ever holds more than L admissions, whichever instance
 * made them, and takes carrying an older or newer limit (an edit still spreading) never reset
 * it. A limit above R grows the ring once, O(R): a raised cap makes room at once, a lowered one
 * counts the last window's admissions at once.
 */
export interface RateStore {
  /**
   * Admits and counts a call at `now` (waitMs 0), or answers how many ms until one would be
   * admitted; with the headroom left after it. The headroom is found by a binary search over the
   * admissions the limit looks back on (their times rise with their numbers, as the instances'
   * clocks agree), O(log limit) slot reads in the take's own transaction.
   */
  take(input: RateTake): Promise<RateAnswer>;
  /** Forgets admissions at or before `before` (they left every window); returns how many. */
  sweep(before: number): Promise<number>;
}

/** An address's failed admin-token attempts in its current window. */
export interface FailureWindow {
  /** Epoch ms of the window's first failure; the window lasts `windowMs` from it. */
  start: number;
  failures: number;
}

/**
 * Failed admin-token attempts per client address, in fixed windows that open at a failure and
 * last `windowMs`, counted by every instance into one row per address: an address locked out
 * through one instance is locked out on all of them.
 */
export interface LockoutStore {
  /** The address's window still open at `now`, if any. */
  current(address: string, now: number, windowMs: number): Promise<FailureWindow | undefined>;
  /** Counts a failure into the address's open window, or into a new one from `now`; the window after it. */
  fail(address: string, now: number, windowMs: number): Promise<FailureWindow>;
  /** True for exactly one caller per window, of any instance: the one that notes the lockout in the audit trail. */
  noteLockout(address: string, now: number, windowMs: number): Promise<boolean>;
  /** Forgets windows that opened before `before`; returns how many. */
  prune(before: number): Promise<number>;
}

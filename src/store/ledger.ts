/**
 * The money store's interface (part of the Store, src/store/store.ts): spend reservations
 * against a key's two monthly limits, the ledger's rows, and the spend and usage read from them.
 * Money in nano-dollars, times in epoch ms.
 */

import type { RateAnswer, RateTake } from './limits.js';

/**
 * A spend reservation an admitted call holds until its ledger row settles it. It holds two
 * amounts, each against its own limit: the most the call can be charged (the ceiling) and the
 * most it can cost the operator upstream, at the vendor's list prices (the upstream limit).
 */
export interface Reservation {
  id: number;
  keyId: string;
  /** Billing cycle of admission, `YYYY-MM` (UTC). */
  cycle: string;
  /** Charged nano-dollars held. */
  nanos: number;
  /** Upstream-cost nano-dollars held. */
  upstreamNanos: number;
}

/** The two monthly limits a key may set: its charged spend (`ceiling`) and its upstream cost (`upstream`). */
export type SpendLimit = 'ceiling' | 'upstream';

export interface ReserveInput {
  keyId: string;
  cycle: string;
  /** The charged amount to hold (against the ceiling). */
  nanos: number;
  /** The upstream-cost amount to hold (against the upstream limit). */
  upstreamNanos: number;
  /** The key's ceiling; null: none (not checked). */
  ceilingNanos: number | null;
  /** The key's upstream limit; null: none (not checked). */
  upstreamLimitNanos: number | null;
  /** The gateway instance holding it: its reservations are released when that instance starts again. */
  instance: string;
  now: number;
  /**
   * The end of the reservation's lease (epoch ms): unless its instance renews it before then, it
   * stops counting against the ceiling at that instant and is swept (an instance that died).
   */
  expiresAt: number;
}

/**
 * A cycle's settled spend and what in-flight calls hold, in nano-dollars: charged (`spent`,
 * `reserved`) and at the vendors' list prices (`upstreamSpent`, `upstreamReserved`).
 */
export interface CycleSpend {
  spent: number;
  reserved: number;
  upstreamSpent: number;
  upstreamReserved: number;
}

/** A refusal names the limits that did not fit (one or both) and the figures it was decided on. */
export type ReserveResult = { admitted: true; reservation: Reservation } | ({ admitted: false; refusedBy: SpendLimit[] } & CycleSpend);

/** The rate cap's take, then the reservation: the take's answer as RateStore.take gives it; `result` null iff the take refused. */
export interface TakenReservation extends RateAnswer {
  result: ReserveResult | null;
}

/** One row per call that reached an upstream or was answered from the response cache. Money in nano-dollars, times in epoch ms. */
export interface LedgerRow {
  admittedAt: number;
  cycle: string;
  keyId: string;
  model: string;
  family: string;
  endpoint: string;
  stream: boolean;
  status: number;
  /** ok, upstream_error, client_disconnected, timeout, error. */
  outcome: string;
  attempts: number;
  promptTokens: number;
  completionTokens: number;
  /** Of the prompt tokens, those the vendor read from its prompt cache and those it wrote to it. */
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Of cacheWriteTokens, those written for an hour (priced at the model's one-hour write rate). */
  cacheWrite1hTokens: number;
  /** Of the completion tokens, those the model spent reasoning (0 when the vendor did not say). */
  reasoningTokens: number;
  /** The completion count came from relayed deltas, the vendor never reported one. */
  usageEstimated: boolean;
  chargedNanos: number;
  /** The call at the vendor's list prices, prompt and completion: the operator's upstream cost. */
  listNanos: number;
  /** From the upstream request to the end of the call; null if it never started. */
  upstreamMs: number | null;
  /** From the upstream request to the first byte relayed; null when nothing was streamed. */
  ttftMs: number | null;
  /** Answered from the response cache: no upstream attempt, both costs 0 (the tokens are the kept answer's). */
  cached: boolean;
  /** The upstream deployment of the answering (last) attempt; null when no attempt was made. */
  deployment: string | null;
}

/** Sums of a key's rows for one UTC day, one model and one endpoint. */
export interface DailyUsage {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  model: string;
  /** The endpoint called (`chat.completions`, `responses`, `messages`, …). */
  endpoint: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  /** Of `cacheWriteTokens`, those written for an hour. */
  cacheWrite1hTokens: number;
  reasoningTokens: number;
  chargedNanos: number;
  listNanos: number;
  /** Of `requests`, those answered from the response cache. */
  cachedRequests: number;
}

/**
 * The money store. Every method that admits or settles is one transaction that is atomic
 * across every process sharing the store, so that no interleaving of gateway instances can
 * admit more than a key's ceiling.
 */
export interface LedgerStore {
  /**
   * Admits iff every limit that is set fits (spend-limits.ts): spent < ceiling and spent +
   * reserved + nanos ≤ ceiling; the same for the upstream figures against the upstream limit.
   * Holds both amounts if so. The key's reservations whose lease ended at or before `now` do not
   * count: a store may drop them first, or only when they would stand in the way (PostgreSQL);
   * the sweep takes the rest. A refusal reports the figures it was decided on.
   */
  reserve(input: ReserveInput): Promise<ReserveResult>;
  /**
   * The rate cap's take (RateStore.take), then — only if it admitted — `reserve`, in one
   * transaction and one round trip: a call's whole admission when its key has both.
   */
  reserveAfterTake(take: RateTake, input: ReserveInput): Promise<TakenReservation>;
  /**
   * Writes a call's row, adds its charged cost and its upstream cost (`listNanos`) to the
   * cycle's spend and drops its reservation, at once.
   */
  record(row: LedgerRow, reservationId: number | null): Promise<void>;
  /** Drops a reservation that no row settled (the call never reached an upstream). */
  release(reservationId: number): Promise<void>;
  /** Drops every reservation an instance holds (left by a crash); returns how many. */
  releaseInstance(instance: string): Promise<number>;
  /**
   * Moves the end of these leases (the reservations of an instance's calls in flight) to
   * `expiresAt`; a lease that had already ended at `now` stays ended. Returns how many moved.
   */
  renewLeases(reservationIds: readonly number[], expiresAt: number, now: number): Promise<number>;
  /** Drops every reservation whose lease ended at or before `now`; returns how many (another instance may be sweeping: then 0). */
  sweepExpiredLeases(now: number): Promise<number>;
  /**
   * A key's spend and reservations in a cycle as they stand at `now`; `null` sums every key. A
   * reservation whose lease ended at or before `now` is not counted, whether or not an admission
   * or the sweep has dropped it yet: a dead instance holds a ceiling for at most its lease.
   */
  cycleSpend(keyId: string | null, cycle: string, now: number): Promise<CycleSpend>;
  /** A key's rows (every key's for `null`) admitted at or after `since`, summed per UTC day and model, oldest first. */
  dailyUsage(keyId: string | null, since: number): Promise<DailyUsage[]>;
  /** Every key's spend and reservations in a cycle at `now` (ended leases not counted, as in cycleSpend) and its last admitted call. */
  keyActivity(cycle: string, now: number): Promise<KeyActivity[]>;
}

export interface KeyActivity extends CycleSpend {
  keyId: string;
  /** Epoch ms of the key's last call that reached an upstream; null if none. */
  lastUsedAt: number | null;
}

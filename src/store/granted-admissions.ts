import type { Grant, GrantStore } from './grants.js';
import type { RateAnswer, RateStore, RateTake } from './limits.js';
import type { LedgerStore, ReserveInput, ReserveResult } from './ledger.js';

/** How long granted admissions last: the rate cap counts each as made at that end. */
export const GRANT_LIFE_MS = 1000;
/** The most admissions one grant takes. */
export const MOST_PER_GRANT = 32;
/** Fewer is not worth a grant: the calls go one by one. */
export const LEAST_PER_GRANT = 2;
/** A grant is taken only while this many calls per admission it takes still fit after it. */
export const SPARE_PER_ADMISSION = 16;
/** A rate cap of L grants at most L / 64 admissions at once (so none below 128). */
export const LIMIT_SHARE = 64;
/** Kinds of calls remembered at most; idle ones are forgotten beyond it. */
export const MOST_KINDS = 1024;

/** What one grant gave, in use from `from` to `until` (the calls' clock); the rate cap's headroom after it, its reset at `resetAt`. */
interface Batch {
  ids: Array<number | null>;
  from: number;
  until: number;
  remaining: number;
  resetAt: number;
}

/** A granted admission: its reservation's id (null: no money limit), and the take's answer it stands for. */
interface Granted {
  id: number | null;
  rate: RateAnswer;
}

/** Calls of one key with the same limits, cycle and amounts: they can use each other's admissions. */
class Kind {
  readonly batches: Batch[] = [];
  granting = false;
  /** No grant before this (one failed). */
  pausedUntil = 0;
  private windowStart = 0;
  private seen = 0;
  private seenBefore = 0;

  /** Counts a call; answers the calls per grant life lately. */
  count(now: number): number {
    if (now - this.windowStart >= GRANT_LIFE_MS) {
      this.seenBefore = now - this.windowStart < 2 * GRANT_LIFE_MS ? this.seen : 0;
      this.windowStart = now;
      this.seen = 0;
    }
    this.seen++;
    return Math.max(this.seen, this.seenBefore);
  }

  /**
   * An admission granted for a call at `now`: undefined when none is on hand. A batch used up
   * leaves the list (its calls scan it no more). Its headroom is the grant's, with the grant's
   * admissions not used yet counted as room (this instance's view: takes made elsewhere since are not in it).
   */
  use(now: number): Granted | undefined {
    for (let at = 0; at < this.batches.length; at++) {
      const batch = this.batches[at] as Batch;
      if (batch.from > now || now > batch.until) continue;
      const id = batch.ids.pop() as number | null;
      if (batch.ids.length === 0) this.batches.splice(at, 1);
      return { id, rate: { waitMs: 0, remaining: batch.remaining + batch.ids.length, resetMs: Math.max(0, batch.resetAt - now) } };
    }
    return undefined;
  }

  onHand(now: number): number {
    return this.batches.reduce((sum, batch) => sum + (now <= batch.until ? batch.ids.length : 0), 0);
  }

  get idle(): boolean {
    return !this.granting && this.batches.length === 0;
  }
}

/** A kind's name: the key, its limits, the cycle and the amounts (absent parts empty). */
const kindOf = (take: RateTake | null, reserve: ReserveInput | null): string =>
  [
    take?.keyId ?? reserve?.keyId,
    take?.limit,
    take?.windowMs,
    reserve?.cycle,
    reserve?.nanos,
    reserve?.upstreamNanos,
    reserve?.ceilingNanos,
    reserve?.upstreamLimitNanos,
    reserve?.instance,
  ].join('\u0000');

const admitted = (input: ReserveInput, id: number): ReserveResult => ({
  admitted: true,
  reservation: { id, keyId: input.keyId, cycle: input.cycle, nanos: input.nanos, upstreamNanos: input.upstreamNanos },
});

/**
 * One promise per event-loop turn, resolved in that turn's check phase (setImmediate): the calls
 * admitted in one turn go on together, as the store's group-committed admissions do.
 */
class TurnEnd {
  private ending: Promise<void> | null = null;

  reached(): Promise<void> {
    this.ending ??= new Promise((resolve) =>
      setImmediate(() => {
        this.ending = null;
        resolve();
      }),
    );
    return this.ending;
  }
}

/**
 * Admissions granted ahead, for a store a round trip away (PostgreSQL). A call's admission (the
 * rate cap's take, the ceiling's reservation, or both) waits for the store. When this instance
 * admits many calls of one kind, it takes a few of their admissions at once in the background
 * (GrantStore.grant: the same takes and reservations, in one transaction) and hands them to its
 * next calls of that kind, which then wait for nothing. A call with none on hand is admitted by
 * the store as before, and its answer is what it always was.
 *
 * - Exactness holds: each granted admission is a real take and a real reservation. The rate cap
 *   counts it as made at the grant's end (GRANT_LIFE_MS), so it may be used any time before.
 * - Near a limit nothing is granted: a grant must leave SPARE_PER_ADMISSION calls of headroom per
 *   admission it takes, in the rate cap's window and under each money limit, and takes at most
 *   1/LIMIT_SHARE of a rate cap. What is granted and not used by its end is released, so another
 *   instance may refuse a call it would have fit for at most that long, and only in the last
 *   stretch before a limit.
 * - Per process: at most MOST_KINDS kinds remembered, each with at most a grant life of admissions.
 * - A call that uses a granted admission goes on at the end of its event-loop turn, with the
 *   turn's other calls, not at once: the upstream requests of one turn are then sent together,
 *   which costs the gateway less CPU per call under load than sending each as its call is read
 *   (docs/performance.md). Calls the store admits go on together anyway (one batch).
 */
export class GrantedAdmissions {
  private readonly kinds = new Map<string, Kind>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly turnEnd = new TurnEnd();

  constructor(
    private readonly grants: GrantStore,
    private readonly onError: (error: Error) => void,
  ) {}

  /** LedgerStore with the ceiling's reservations (alone, or after the rate cap's take) granted ahead when on hand. */
  ledger(inner: LedgerStore): LedgerStore {
    return {
      reserve: async (input) => {
        const id = this.use(null, input, input.now)?.id;
        return typeof id === 'number' ? this.served(admitted(input, id)) : inner.reserve(input);
      },
      reserveAfterTake: async (take, input) => {
        const granted = this.use(take, input, take.now);
        return typeof granted?.id === 'number' ? this.served({ ...granted.rate, result: admitted(input, granted.id) }) : inner.reserveAfterTake(take, input);
      },
      record: (row, reservationId) => inner.record(row, reservationId),
      release: (reservationId) => inner.release(reservationId),
      releaseInstance: (instance) => inner.releaseInstance(instance),
      renewLeases: (reservationIds, expiresAt, now) => inner.renewLeases(reservationIds, expiresAt, now),
      sweepExpiredLeases: (now) => inner.sweepExpiredLeases(now),
      cycleSpend: (keyId, cycle, now) => inner.cycleSpend(keyId, cycle, now),
      dailyUsage: (keyId, since) => inner.dailyUsage(keyId, since),
      keyActivity: (cycle, now) => inner.keyActivity(cycle, now),
    };
  }

  /** RateStore with takes granted ahead when on hand. */
  rates(inner: RateStore): RateStore {
    return {
      take: async (input) => {
        const granted = this.use(input, null, input.now);
        return granted === undefined ? inner.take(input) : this.served(granted.rate);
      },
      sweep: (before) => inner.sweep(before),
    };
  }

  /** Releases what is on hand (the instance stops). */
  async close(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    // A release per kind: one key's spend row each (several in one statement could deadlock with another instance's).
    const held = [...this.kinds.values()].map((kind) => kind.batches.flatMap((batch) => batch.ids.splice(0)));
    this.kinds.clear();
    await Promise.all(held.map((ids) => this.release(ids)));
  }

  /** A call's answer from what was granted, given at the end of its turn with the turn's other calls. */
  private async served<T>(answer: T): Promise<T> {
    await this.turnEnd.reached();
    return answer;
  }

  /** A granted admission for this call if one is on hand (undefined if not); asks for more when running low. */
  private use(take: RateTake | null, reserve: ReserveInput | null, now: number): Granted | undefined {
    const name = kindOf(take, reserve);
    let kind = this.kinds.get(name);
    if (!kind) {
      if (this.kinds.size >= MOST_KINDS) this.forgetIdle();
      kind = new Kind();
      this.kinds.set(name, kind);
    }
    const lately = kind.count(now);
    const granted = kind.use(now);
    // A quarter of a grant life's calls per grant, asked for when half of one is left.
    const want = Math.min(MOST_PER_GRANT, Math.ceil(lately / 4), take ? Math.floor(take.limit / LIMIT_SHARE) : MOST_PER_GRANT);
    if (want >= LEAST_PER_GRANT && !kind.granting && now >= kind.pausedUntil && kind.onHand(now) <= want / 2) this.grant(kind, take, reserve, now, want);
    return granted;
  }

  private grant(kind: Kind, take: RateTake | null, reserve: ReserveInput | null, now: number, count: number): void {
    kind.granting = true;
    const input = { take, reserve, count, spare: count * SPARE_PER_ADMISSION, leadMs: GRANT_LIFE_MS };
    this.grants.grant(input).then(
      ({ ids, remaining, resetMs }: Grant) => {
        kind.granting = false;
        if (ids.length > 0) this.hold(kind, { ids, from: now, until: now + GRANT_LIFE_MS, remaining, resetAt: now + resetMs });
      },
      (error: unknown) => {
        kind.granting = false;
        kind.pausedUntil = now + GRANT_LIFE_MS;
        this.told(error);
      },
    );
  }

  /** Keeps a grant's admissions for its life, then releases what is left. */
  private hold(kind: Kind, batch: Batch): void {
    kind.batches.push(batch);
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      const at = kind.batches.indexOf(batch);
      if (at >= 0) kind.batches.splice(at, 1);
      void this.release(batch.ids.splice(0));
    }, GRANT_LIFE_MS);
    timer.unref();
    this.timers.add(timer);
  }

  private async release(ids: Array<number | null>): Promise<void> {
    const held = ids.filter((id): id is number => id !== null);
    if (held.length === 0) return;
    // A failed release is no loss: the reservations' leases end them (nothing renews them).
    await this.grants.release(held).catch((error: unknown) => this.told(error));
  }

  private told(error: unknown): void {
    this.onError(error instanceof Error ? error : new Error(String(error)));
  }

  private forgetIdle(): void {
    for (const [name, kind] of this.kinds) if (kind.idle) this.kinds.delete(name);
  }
}

import type { Logger } from 'pino';
import type { Call, Clock, Store } from '../../src/plugin-api.js';

/** The reservation a call of this instance holds, kept on the call until it completes. */
const LEASE = Symbol('ceiling.lease');
type WithLease = Call & { [LEASE]?: number };

/**
 * The leases of this instance's calls in flight. Every quarter of the lease its heartbeat
 * renews them to now + the lease, then sweeps every instance's expired leases. A dead
 * instance's leases are thus never renewed again and stop counting at the end of their lease
 * (at most `leaseMs` after the death): the store leaves an ended lease out of every admission
 * and every figure it reads, so the sweep only tidies the rows. Only reservations of calls still running are renewed:
 * one whose release failed (the database unreachable) expires like a dead instance's.
 */
export class Leases {
  private readonly held = new Set<number>();
  private readonly timer: NodeJS.Timeout;
  private beating = false;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly leaseMs: number,
    private readonly log: Logger,
  ) {
    this.timer = setInterval(() => void this.heartbeat(), Math.floor(leaseMs / 4));
    this.timer.unref();
  }

  /** When a lease taken now ends. */
  expiry(now: number): number {
    return now + this.leaseMs;
  }

  hold(call: Call, reservationId: number): void {
    (call as WithLease)[LEASE] = reservationId;
    this.held.add(reservationId);
  }

  /** The call completed: its lease is no longer renewed. */
  drop(call: Call): void {
    const id = (call as WithLease)[LEASE];
    if (id !== undefined) this.held.delete(id);
  }

  /** Renews this instance's leases and sweeps expired ones; a failure is logged and retried at the next beat. */
  async heartbeat(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    const now = this.clock.now();
    try {
      await this.store.ledger.renewLeases([...this.held], this.expiry(now), now);
      const swept = await this.store.ledger.sweepExpiredLeases(now);
      if (swept > 0) this.log.warn({ swept }, 'expired spend reservations swept (their instance stopped renewing them)');
    } catch (error) {
      this.log.warn({ err: error }, 'spend reservation heartbeat failed; retried at the next beat');
    } finally {
      this.beating = false;
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}

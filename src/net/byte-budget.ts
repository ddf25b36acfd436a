/**
 * A gateway-wide bound on bytes held at once (remote images fetched for a vendor that takes
 * only inline bytes): callers reserve before they read and release when done. A reservation
 * that does not fit waits its turn (first come, first served, so a large one is not starved
 * by small ones) for at most `waitMs`, then fails with BudgetExhausted: never an unbounded
 * wait, never more held than the limit.
 */

export class BudgetExhausted extends Error {
  override readonly name = 'BudgetExhausted';
}

/** Bytes reserved from a budget; give them back with `release` (idempotent). */
export interface Lease {
  readonly bytes: number;
  /** Gives back what was reserved beyond `bytes` (e.g. an image smaller than the most it could have been). */
  shrinkTo(bytes: number): void;
  release(): void;
}

interface Waiter {
  bytes: number;
  grant(): void;
}

const MIB = 1024 * 1024;
const mib = (bytes: number): string => `${Math.round((bytes / MIB) * 10) / 10} MiB`;

export class ByteBudget {
  private heldBytes = 0;
  private readonly queue: Waiter[] = [];

  constructor(
    readonly limit: number,
    private readonly waitMs: number,
  ) {}

  /** Bytes reserved now. */
  get held(): number {
    return this.heldBytes;
  }

  /** Reserves `bytes`, waiting at most `waitMs` (or until `signal` aborts) for them to be free. */
  acquire(bytes: number, signal?: AbortSignal): Promise<Lease> {
    if (bytes > this.limit) return Promise.reject(this.exhausted(`${mib(bytes)} is more than`));
    if (!this.queue.length && this.heldBytes + bytes <= this.limit) return Promise.resolve(this.lease(bytes));
    signal?.throwIfAborted();
    return new Promise<Lease>((resolve, reject) => {
      const leave = (error: unknown): void => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const at = this.queue.indexOf(waiter);
        if (at !== -1) this.queue.splice(at, 1);
        this.pump();
        reject(error);
      };
      const onAbort = (): void => leave(signal?.reason);
      const waiter: Waiter = {
        bytes,
        grant: () => {
          clearTimeout(timer);
          signal?.removeEventListener('abort', onAbort);
          resolve(this.lease(bytes));
        },
      };
      const timer = setTimeout(() => leave(this.exhausted(`no room for ${mib(bytes)} more within ${this.waitMs} ms:`)), this.waitMs);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.queue.push(waiter);
    });
  }

  private exhausted(why: string): BudgetExhausted {
    return new BudgetExhausted(`${why} the ${mib(this.limit)} held at once by all calls together`);
  }

  private lease(bytes: number): Lease {
    this.heldBytes += bytes;
    let held = bytes;
    const giveBack = (to: number): void => {
      if (to >= held) return;
      this.heldBytes -= held - to;
      held = to;
      this.pump();
    };
    return {
      get bytes() {
        return held;
      },
      shrinkTo: (to) => giveBack(Math.max(0, to)),
      release: () => giveBack(0),
    };
  }

  /** Grants waiting reservations in order, as long as the first one fits. */
  private pump(): void {
    for (let first = this.queue[0]; first && this.heldBytes + first.bytes <= this.limit; first = this.queue[0]) {
      this.queue.shift();
      first.grant();
    }
  }
}

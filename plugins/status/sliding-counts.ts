/**
 * Attempts and errors over the last `seconds` seconds, in one slot per second with running
 * totals: adding and reading are O(1) amortised, memory is fixed.
 */
export class SlidingCounts {
  private readonly attempts: Uint32Array;
  private readonly errors: Uint32Array;
  private totalAttempts = 0;
  private totalErrors = 0;
  /** The latest second the slots have been advanced to. */
  private last = Number.NEGATIVE_INFINITY;

  constructor(private readonly seconds: number) {
    this.attempts = new Uint32Array(seconds);
    this.errors = new Uint32Array(seconds);
  }

  add(now: number, error: boolean): void {
    const second = this.advance(now);
    const slot = second % this.seconds;
    this.attempts[slot] = (this.attempts[slot] as number) + 1;
    this.totalAttempts += 1;
    if (error) {
      this.errors[slot] = (this.errors[slot] as number) + 1;
      this.totalErrors += 1;
    }
  }

  read(now: number): { attempts: number; errors: number } {
    this.advance(now);
    return { attempts: this.totalAttempts, errors: this.totalErrors };
  }

  /** Empties the slots of the seconds that passed since the last call (they held data a window old). */
  private advance(now: number): number {
    const second = Math.floor(now / 1000);
    if (second <= this.last) return second;
    const steps = Math.min(second - this.last, this.seconds);
    for (let s = second - steps + 1; s <= second; s++) {
      const slot = ((s % this.seconds) + this.seconds) % this.seconds;
      this.totalAttempts -= this.attempts[slot] as number;
      this.totalErrors -= this.errors[slot] as number;
      this.attempts[slot] = 0;
      this.errors[slot] = 0;
    }
    this.last = second;
    return second;
  }
}

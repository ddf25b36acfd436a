/** A count of what is in progress (requests, calls), and a bounded wait for it to reach zero. */
export class InFlight {
  private count = 0;
  private idle: (() => void) | null = null;

  get size(): number {
    return this.count;
  }

  /** Counts one more in progress; returns how to count it out (once, however often it is called). */
  enter(): () => void {
    this.count += 1;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.count -= 1;
      if (this.count === 0) this.idle?.();
    };
  }

  /** Resolves once nothing is in progress, or after `ms`; with how many still are. */
  async settled(ms: number): Promise<number> {
    if (this.count > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, ms);
        this.idle = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.count;
  }
}

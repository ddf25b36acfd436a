/**
 * An exact sliding-window cap: at most `limit` admissions in any `windowMs`. Each id keeps a
 * ring of its last `limit` admission times, so a check is O(1) and the memory is bounded by the
 * cap; ids idle for a whole window are swept.
 */

interface Ring {
  times: Float64Array;
  /** Where the next admission is written; once the ring is full, also the oldest admission. */
  next: number;
  count: number;
}

/** The ring's admissions, oldest first. */
function chronological(ring: Ring): number[] {
  const size = ring.times.length;
  const first = (ring.next - ring.count + size) % size;
  return Array.from({ length: ring.count }, (_, i) => ring.times[(first + i) % size] as number);
}

function ringOf(limit: number, recent: readonly number[]): Ring {
  const kept = recent.slice(-limit);
  const times = new Float64Array(limit);
  times.set(kept);
  return { times, next: kept.length % limit, count: kept.length };
}

export class SlidingWindow {
  private readonly rings = new Map<string, Ring>();

  constructor(private readonly windowMs: number) {}

  /** Admits and counts a request at `now` (0), or answers how many ms until one would be admitted. */
  take(id: string, limit: number, now: number): number {
    let ring = this.rings.get(id);
    // A changed cap keeps the most recent admissions that still fit.
    if (!ring || ring.times.length !== limit) {
      ring = ringOf(limit, ring ? chronological(ring) : []);
      this.rings.set(id, ring);
    }
    if (ring.count === limit) {
      const oldest = ring.times[ring.next] as number;
      const wait = oldest + this.windowMs - now;
      if (wait > 0) return wait;
    } else {
      ring.count += 1;
    }
    ring.times[ring.next] = now;
    ring.next = (ring.next + 1) % limit;
    return 0;
  }

  /** Forgets ids whose newest admission left the window. */
  sweep(now: number): void {
    for (const [id, ring] of this.rings) {
      const newest = ring.times[(ring.next - 1 + ring.times.length) % ring.times.length] as number;
      if (now - newest >= this.windowMs) this.rings.delete(id);
    }
  }

  get size(): number {
    return this.rings.size;
  }
}

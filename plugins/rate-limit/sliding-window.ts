/**
 * An exact sliding-window cap: at most `limit` admissions in any `windowMs`. Each id keeps the
 * times of its admissions still inside the window, oldest first, in a ring that grows on
 * demand (doubling, never beyond the cap): a check is O(1) amortised and the memory follows
 * the traffic actually seen, not the size of the cap. Ids idle for a whole window are swept.
 */

interface Ring {
  times: Float64Array;
  /** Index of the oldest admission. */
  start: number;
  count: number;
}

const INITIAL_CAPACITY = 16;

function newRing(capacity: number): Ring {
  return { times: new Float64Array(capacity), start: 0, count: 0 };
}

const at = (ring: Ring, i: number): number => ring.times[(ring.start + i) % ring.times.length] as number;

/** A ring of `capacity` slots holding the newest `keep` admissions of `ring`, oldest first. */
function resized(ring: Ring, capacity: number, keep: number): Ring {
  const next = newRing(capacity);
  const from = ring.count - keep;
  for (let i = 0; i < keep; i++) next.times[i] = at(ring, from + i);
  next.count = keep;
  return next;
}

export class SlidingWindow {
  private readonly rings = new Map<string, Ring>();

  constructor(private readonly windowMs: number) {}

  /** Admits and counts a request at `now` (0), or answers how many ms until one would be admitted. */
  take(id: string, limit: number, now: number): number {
    let ring = this.rings.get(id) ?? newRing(Math.min(limit, INITIAL_CAPACITY));
    // Admissions that left the window no longer count.
    while (ring.count > 0 && at(ring, 0) + this.windowMs <= now) {
      ring.start = (ring.start + 1) % ring.times.length;
      ring.count -= 1;
    }
    // A lowered cap keeps only the most recent admissions that still fit.
    if (ring.times.length > limit) ring = resized(ring, limit, Math.min(ring.count, limit));
    if (ring.count >= limit) {
      this.rings.set(id, ring);
      return at(ring, 0) + this.windowMs - now;
    }
    if (ring.count === ring.times.length) ring = resized(ring, Math.min(limit, ring.times.length * 2), ring.count);
    ring.times[(ring.start + ring.count) % ring.times.length] = now;
    ring.count += 1;
    this.rings.set(id, ring);
    return 0;
  }

  /** Forgets ids whose newest admission left the window. */
  sweep(now: number): void {
    for (const [id, ring] of this.rings) {
      if (ring.count === 0 || now - at(ring, ring.count - 1) >= this.windowMs) this.rings.delete(id);
    }
  }

  get size(): number {
    return this.rings.size;
  }
}

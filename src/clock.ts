/** Wall-clock time in epoch milliseconds; injected so tests can move time (rotation, expiry, cycles). */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

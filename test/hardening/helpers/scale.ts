/**
 * Short and long forms of the hardening suites. `npm test` runs the short form (each file well
 * inside tap's 60 s); `npm run test:hardening` sets HARDENING_LONG=1, which scales counts and
 * durations up.
 */
export const LONG: boolean = process.env['HARDENING_LONG'] === '1';

/** `short` in `npm test`, `long` in the long form. */
export const scaled = (short: number, long: number): number => (LONG ? long : short);

/** The seed of a suite's random choices: HARDENING_SEED, or a fixed one. */
export const SEED = Number(process.env['HARDENING_SEED'] ?? 20261115);

/** A seeded uniform [0, 1) generator (mulberry32), so a run's random choices can be replayed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

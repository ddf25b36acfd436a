/**
 * Short and long forms of the hardening suites. `npm test` runs the short form (each file well
 * inside tap's 60 s); `npm run test:hardening` sets HARDENING_LONG=1, which scales counts and
 * durations up.
 */
export const LONG: boolean = process.env['HARDENING_LONG'] === '1';

/** `short` in `npm test`, `long` in the long form. */
export const scaled = (short: number, long: number): number => (LONG ? long : short);

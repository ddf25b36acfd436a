/**
 * Money (nano-dollars), times (epoch ms) and counts are integers that the database keeps as
 * 64-bit and the gateway handles as JS numbers. A number is exact only up to 2^53 − 1, so a
 * value read back is converted exactly or refused loudly — never rounded through a float.
 */

const MAX = BigInt(Number.MAX_SAFE_INTEGER);
const MIN = -MAX;

export class UnsafeIntegerError extends RangeError {
  constructor(value: string) {
    super(`the database returned ${value}, beyond what a JS number holds exactly (±${Number.MAX_SAFE_INTEGER}); refusing to round it`);
    this.name = 'UnsafeIntegerError';
  }
}

/** An integer from a driver (bigint, or a number already exact) as a safe JS number; throws otherwise. */
export function exactNumber(value: bigint | number): number {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new UnsafeIntegerError(String(value));
    return value;
  }
  if (value > MAX || value < MIN) throw new UnsafeIntegerError(value.toString());
  return Number(value);
}

/** The same for a nullable column. */
export const exactOrNull = (value: bigint | number | null): number | null => (value === null ? null : exactNumber(value));

/** An integer in its decimal text form (PostgreSQL's int8 and numeric): parsed as a bigint, never a float. */
export function parseExactInteger(text: string): number {
  if (!/^-?\d+$/.test(text)) throw new UnsafeIntegerError(`${text} (not an integer; cast the expression to bigint)`);
  return exactNumber(BigInt(text));
}

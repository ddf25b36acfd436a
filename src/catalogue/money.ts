/**
 * Exact money. Amounts are integer nano-dollars (1e-9 USD) everywhere inside the gateway:
 * 40 output tokens at $0.038 per 1M tokens are 40 × 38 = 1520 nano-dollars, exactly.
 * A JS number holds integers exactly up to 2^53 nano-dollars (about $9 million), far above
 * any single ledger sum we form; the API speaks decimal strings.
 */

export type Nanos = number;

const NANOS_PER_USD = 1_000_000_000;
const USD_PATTERN = /^(\d{1,7})(?:\.(\d{1,9}))?$/;

/** "7.50" → 7_500_000_000. Throws on anything that is not a plain non-negative decimal. */
export function parseUsd(text: string): Nanos {
  const match = USD_PATTERN.exec(text.trim());
  if (!match) throw new RangeError(`not a dollar amount: ${JSON.stringify(text)}`);
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? '').padEnd(9, '0'));
  return whole * NANOS_PER_USD + fraction;
}

/**
 * 1520 → "0.00000152"; 50_000_000_000 → "50.00". At least two decimals (cents), more only
 * where the amount has them, never a binary float on the way.
 */
export function formatUsd(nanos: Nanos): string {
  if (!Number.isSafeInteger(nanos)) throw new RangeError(`not an exact amount: ${nanos}`);
  const sign = nanos < 0 ? '-' : '';
  const abs = Math.abs(nanos);
  const whole = Math.floor(abs / NANOS_PER_USD);
  const fraction = String(abs % NANOS_PER_USD)
    .padStart(9, '0')
    .replace(/0+$/, '')
    .padEnd(2, '0');
  return `${sign}${whole}.${fraction}`;
}

/**
 * A price in dollars per 1M tokens → nano-dollars per token. Exact only when the price has at
 * most three decimals (0.038 → 38); the catalogue schema enforces that.
 */
export function pricePerTokenNanos(perMillionUsd: string): Nanos {
  const perMillion = parseUsd(perMillionUsd);
  if (perMillion % 1_000_000 !== 0) {
    throw new RangeError(`price ${perMillionUsd} per 1M tokens has more than 3 decimals`);
  }
  return perMillion / 1_000_000;
}

/**
 * The rate cap's headroom as response headers, in the dialect of the format called
 * (`IngressFormat.rateLimitHeaders`; docs/api-contract.md#rate-limit-headers): OpenAI's
 * `x-ratelimit-{limit,remaining,reset}-requests`, the reset a duration (`1s`, `6m0s`, `20ms`), or
 * Anthropic's `anthropic-ratelimit-requests-{limit,remaining,reset}`, the reset an RFC 3339 time.
 */

import type { Endpoint } from '../../src/plugin-api.js';

export type RateLimitDialect = NonNullable<Endpoint['format']['rateLimitHeaders']>;

/** The cap and what the take answered. */
export interface Headroom {
  limit: number;
  remaining: number;
  resetMs: number;
}

/**
 * A duration as OpenAI writes it (Go's `time.Duration` text, to the millisecond): `0s`, `20ms`,
 * `1.5s`, `6m0s`, `1h0m0s`.
 */
export function goDuration(ms: number): string {
  const whole = Math.max(0, Math.round(ms));
  if (whole < 1000) return whole === 0 ? '0s' : `${whole}ms`;
  const hours = Math.floor(whole / 3_600_000);
  const minutes = Math.floor((whole % 3_600_000) / 60_000);
  const seconds = ((whole % 60_000) / 1000).toFixed(3).replace(/\.?0+$/, '');
  if (hours > 0) return `${hours}h${minutes}m${seconds}s`;
  return minutes > 0 ? `${minutes}m${seconds}s` : `${seconds}s`;
}

/** The headers of `dialect` for `headroom`, `now` the take's time (epoch ms). */
export function rateLimitHeaders(dialect: RateLimitDialect, { limit, remaining, resetMs }: Headroom, now: number): Record<string, string> {
  if (dialect === 'openai') {
    return {
      'x-ratelimit-limit-requests': String(limit),
      'x-ratelimit-remaining-requests': String(remaining),
      'x-ratelimit-reset-requests': goDuration(resetMs),
    };
  }
  return {
    'anthropic-ratelimit-requests-limit': String(limit),
    'anthropic-ratelimit-requests-remaining': String(remaining),
    // RFC 3339 to the second, as Anthropic writes it; rounded up so that it is never early.
    'anthropic-ratelimit-requests-reset': new Date(Math.ceil((now + resetMs) / 1000) * 1000).toISOString().replace('.000Z', 'Z'),
  };
}

import type { IncomingHttpHeaders } from 'node:http';

/**
 * The delay an upstream asked for, in ms: `retry-after-ms` (milliseconds) wins over
 * `Retry-After` (whole or fractional seconds, or an HTTP date measured against `now`, epoch ms).
 * Null when neither header holds a usable value.
 */
export function retryAfterMs(headers: IncomingHttpHeaders, now: number): number | null {
  const ms = headers['retry-after-ms'];
  if (typeof ms === 'string' && /^\s*\d+(\.\d+)?\s*$/.test(ms)) return Number(ms);
  const after = headers['retry-after'];
  if (typeof after !== 'string' || after.trim() === '') return null;
  const text = after.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

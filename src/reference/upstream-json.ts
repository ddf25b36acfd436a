import type { JsonObject } from '../chain/call.js';
import { GatewayError } from '../http/errors.js';

/** Parses a JSON object an upstream sent; anything else is a 502 naming the family and what was bad. */
export function parseUpstreamJson(text: string, family: string, what: string): JsonObject {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new GatewayError(502, `The ${family} upstream sent ${what} that is not JSON.`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new GatewayError(502, `The ${family} upstream sent ${what} that is not a JSON object.`);
  }
  return value as JsonObject;
}

/** More tokens than any call reads or writes: a vendor's count above it is read as this (its cost stays an exact integer). */
export const MAX_TOKEN_COUNT = 1e9;

/**
 * Vendors' token counts are read through this: a whole number of tokens, never more than
 * MAX_TOKEN_COUNT; a fraction is rounded up (the ledger and spend are integer nano-dollars, and a
 * count a vendor got wrong is not billed below what it said); anything else is 0.
 */
export const tokenCount = (value: unknown): number => (typeof value === 'number' && value >= 0 ? Math.min(Math.ceil(value), MAX_TOKEN_COUNT) : 0);

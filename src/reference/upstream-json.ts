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

/** A non-negative finite number, or 0: vendors' token counts are read through this. */
export const tokenCount = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : 0);

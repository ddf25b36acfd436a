import type { Usage } from '../chain/call.js';
import type { ModelEntry } from './catalogue.js';
import type { Nanos } from './money.js';

export interface Cost {
  /** What the gateway bills, in nano-dollars. */
  charged: Nanos;
  /** What the vendor's list price would have cost. */
  list: Nanos;
}

/**
 * Exact cost of a usage on a model: tokens × per-token prices, input and output. Upstream, the
 * prompt tokens read from and written to the vendor's cache are priced at its cache rates (a
 * one-hour write at its own) and the rest at the input price; the caller's charge prices every prompt token alike (docs/caching.md#pricing).
 */
export function costOf(model: ModelEntry, usage: Usage): Cost {
  const { input } = model;
  // A vendor's parts never count for more than its whole: the cost stays that of the prompt it billed.
  const cached = Math.min(usage.cachedTokens ?? 0, usage.promptTokens);
  const written = Math.min(usage.cacheWriteTokens ?? 0, usage.promptTokens - cached);
  const writtenForAnHour = Math.min(usage.cacheWrite1hTokens ?? 0, written);
  const uncached = usage.promptTokens - cached - written;
  return {
    charged: usage.completionTokens * model.output.chargedNanosPerToken + usage.promptTokens * input.chargedNanosPerToken,
    list:
      usage.completionTokens * model.output.listNanosPerToken +
      uncached * input.listNanosPerToken +
      cached * input.cacheReadNanosPerToken +
      (written - writtenForAnHour) * input.cacheWriteNanosPerToken +
      writtenForAnHour * input.cacheWrite1hNanosPerToken,
  };
}

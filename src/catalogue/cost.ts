import type { Usage } from '../chain/call.js';
import type { ModelEntry } from './catalogue.js';
import type { Nanos } from './money.js';

export interface Cost {
  /** What the gateway bills, in nano-dollars. */
  charged: Nanos;
  /** What the vendor's list price would have cost. */
  list: Nanos;
}

/** Exact cost of a usage on a model: tokens × per-token prices, input and output. */
export function costOf(model: ModelEntry, usage: Usage): Cost {
  return {
    charged: usage.completionTokens * model.output.chargedNanosPerToken + usage.promptTokens * model.input.chargedNanosPerToken,
    list: usage.completionTokens * model.output.listNanosPerToken + usage.promptTokens * model.input.listNanosPerToken,
  };
}

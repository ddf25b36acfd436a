import { costOf, type Call, type ModelEntry, type Nanos } from '../../src/plugin-api.js';

/**
 * The most output tokens a request can be billed for: its own limit (as its format names it —
 * chat's `max_completion_tokens` or `max_tokens`, Responses' `max_output_tokens`, Messages'
 * `max_tokens` — else the model's `max_output_tokens`; never above the model's), times the
 * completions it asks for (`n`, or the legacy `best_of`, which are generated and billed too).
 * Embeddings produce no output tokens.
 */
export function maxOutputTokens(call: Call, model: ModelEntry): number {
  const { maxOutputTokens: limit, choices } = call.outline;
  return Math.min(limit ?? model.maxOutputTokens, model.maxOutputTokens) * choices;
}

/**
 * What an admitted call holds against its key's ceiling: its most output tokens × the charged
 * output price, plus — only where the catalogue sets an input price — the request's size in
 * bytes as an upper bound of its prompt tokens × the charged input price (a text token is at
 * least one byte). Input prices are 0 today, so the second term is 0.
 */
export function reservationFor(call: Call, model: ModelEntry): Nanos {
  const promptBound = model.input.chargedNanosPerToken === 0 ? 0 : (call.rawJson?.length ?? 0);
  return costOf(model, { promptTokens: promptBound, completionTokens: maxOutputTokens(call, model) }).charged;
}

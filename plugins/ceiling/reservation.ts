import { costOf, type Call, type ModelEntry, type Nanos } from '../../src/plugin-api.js';

const positiveInt = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;

/**
 * The most output tokens a request can be billed for: its own limit (`max_completion_tokens`,
 * else `max_tokens`, else the model's `max_output_tokens`; never above the model's), times the
 * completions it asks for (`n`, or the legacy `best_of`, which are generated and billed too).
 * Embeddings produce no output tokens.
 */
export function maxOutputTokens(call: Call, model: ModelEntry): number {
  if (call.endpoint.name === 'embeddings') return 0;
  const body = call.body;
  const limit = positiveInt(body['max_completion_tokens']) ?? positiveInt(body['max_tokens']) ?? model.maxOutputTokens;
  const choices = Math.max(positiveInt(body['n']) ?? 1, positiveInt(body['best_of']) ?? 1);
  return Math.min(limit, model.maxOutputTokens) * choices;
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

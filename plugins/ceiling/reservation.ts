import { costOf, type Call, type Cost, type ModelEntry } from '../../src/plugin-api.js';

/**
 * The most output tokens a request can be billed for on `model`: its own limit (as its format
 * names it — chat's `max_completion_tokens` or `max_tokens`, Responses' `max_output_tokens`,
 * Messages' `max_tokens` — else the model's `max_output_tokens`; never above the model's, and the
 * capabilities plugin refuses a limit above it), times the completions it asks for (`n`, or the
 * legacy `best_of`, which are generated and billed too). Embeddings produce no output tokens.
 */
export function maxOutputTokens(call: Call, model: ModelEntry): number {
  const { maxOutputTokens: limit, choices } = call.outline;
  return Math.min(limit ?? model.maxOutputTokens, model.maxOutputTokens) * choices;
}

/**
 * The fields by which a request of any format asks the vendor to write its prompt to a cache
 * (docs/caching.md): a breakpoint (`cache_control`, `prompt_cache_breakpoint`) or automatic
 * caching (`prompt_cache_key`, `prompt_cache_retention`).
 */
const CACHING_FIELDS = ['"cache_control"', '"prompt_cache_breakpoint"', '"prompt_cache_key"', '"prompt_cache_retention"'];

/**
 * Whether the vendor may bill `call`'s prompt above `model`'s input list price: the model's
 * cache writes cost more (alpha: 1.25 ×, 2 × for an hour) and the request asks for caching.
 * The body's bytes are searched for the fields (a string inside a prompt has its quotes escaped)
 * only for such a model.
 */
function mayWriteDearer(call: Call, model: ModelEntry): boolean {
  const { input } = model;
  const raw = call.rawJson;
  return (
    raw !== undefined &&
    Math.max(input.cacheWriteNanosPerToken, input.cacheWrite1hNanosPerToken) > input.listNanosPerToken &&
    CACHING_FIELDS.some((field) => raw.includes(field))
  );
}

/**
 * What the call costs at most if `model` answers it: its most output tokens and an upper bound
 * of its prompt tokens — the request's size in bytes plus any stored conversation it replays (a
 * text token is at least one byte) — at the charged prices (`charged`, against the ceiling; input
 * is charged 0) and at the vendor's list prices (`list`, the upstream cost, against the upstream
 * limit), the whole prompt at the dearer cache-write rate when the vendor may write it.
 */
function worstCase(call: Call, model: ModelEntry): Cost {
  const promptBound = (call.rawJson?.length ?? 0) + call.replayedInputBytes;
  const usage = { promptTokens: promptBound, completionTokens: maxOutputTokens(call, model) };
  if (!mayWriteDearer(call, model)) return costOf(model, usage);
  const forAnHour = model.input.cacheWrite1hNanosPerToken >= model.input.cacheWriteNanosPerToken;
  return costOf(model, { ...usage, cacheWriteTokens: promptBound, cacheWrite1hTokens: forAnHour ? promptBound : 0 });
}

/**
 * What an admitted call holds: the worst case of its model, or — when a fallback sibling may
 * answer instead (`call.fallbackModel`, named by the retry plugin) — the larger of the two
 * models' worst cases, each amount on its own: one model answers and is billed, so neither
 * limit can be overshot whichever it is.
 */
export function reservationFor(call: Call, model: ModelEntry): Cost {
  const own = worstCase(call, model);
  if (!call.fallbackModel) return own;
  const sibling = worstCase(call, call.fallbackModel);
  return { charged: Math.max(own.charged, sibling.charged), list: Math.max(own.list, sibling.list) };
}

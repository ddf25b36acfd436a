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
 * What the call costs at most if `model` answers it: its most output tokens and an upper bound
 * of its prompt tokens — the request's size in bytes plus any stored conversation it replays (a
 * text token is at least one byte) — at the charged prices (`charged`, against the ceiling; input
 * is charged 0) and at the vendor's list prices (`list`, the upstream cost, against the upstream
 * limit).
 */
function worstCase(call: Call, model: ModelEntry): Cost {
  const promptBound = (call.rawJson?.length ?? 0) + call.replayedInputBytes;
  return costOf(model, { promptTokens: promptBound, completionTokens: maxOutputTokens(call, model) });
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

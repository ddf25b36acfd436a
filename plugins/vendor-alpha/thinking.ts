import { invalidRequest, type JsonObject, type ModelEntry } from '../../src/plugin-api.js';
import type { NeutralRequest } from '../../src/toolkit/neutral.js';
import { reasoningPlan, unsupportedSetting } from '../../src/toolkit/vendor.js';

/**
 * Alpha's thinking settings from what the caller asked of the model's reasoning
 * (docs/reasoning.md#alpha): `thinking: {type: "enabled", budget_tokens}` for budgets,
 * `thinking: {type: "adaptive"}` with `output_config.effort` for adaptive models, nothing when
 * the model is not to think. While it thinks the vendor refuses several settings; each is a 400
 * naming the caller's parameter here, never a value quietly changed.
 */

/** The vendor's least thinking budget. */
const MIN_BUDGET = 1024;

/** What the vendor refuses while the model thinks: the caller's parameter and why, or null. `jsonTool`: why the JSON answer needs the forced tool, if it does. */
function conflict(request: NeutralRequest, jsonTool: string | null): { param: string; why: string } | null {
  const names = request.params ?? {};
  if (request.temperature !== null && request.temperature !== 1) return { param: names.temperature ?? 'temperature', why: 'temperature must be 1 or unset' };
  if (request.topK !== null) return { param: names.topK ?? 'top_k', why: 'top_k must be unset' };
  if (request.topP !== null && request.topP < 0.95) return { param: names.topP ?? 'top_p', why: 'top_p must be between 0.95 and 1, or unset' };
  const choice = request.toolChoice;
  if (choice === 'required' || (choice !== null && typeof choice === 'object')) return { param: 'tool_choice', why: 'tool_choice may only be auto or none' };
  // A JSON answer alpha cannot give natively is a forced tool, which the vendor does not take with thinking.
  if (request.responseFormat && jsonTool)
    return { param: request.responseFormat.param, why: `this JSON output is not available (${jsonTool}, so it would be a forced tool)` };
  return null;
}

/** The thinking fields of the request (none when the model is not to think), after the vendor's constraints are checked. */
export function alphaThinking(request: NeutralRequest, model: ModelEntry, maxTokens: number, jsonTool: string | null): JsonObject {
  const plan = reasoningPlan(request.reasoning, model, maxTokens);
  if (!plan || plan.setting.kind === 'off') return {};
  const { setting, param } = plan;
  const found = conflict(request, jsonTool);
  if (found) throw invalidRequest(`${found.why} for this model while it thinks (${param} asks it to).`, found.param);
  if (request.turns.at(-1)?.role === 'assistant') {
    throw invalidRequest(`${param} cannot be used with a conversation that ends with an assistant message (a prefill) for this model.`, param);
  }
  if (setting.kind === 'adaptive') return { thinking: { type: 'adaptive' }, output_config: { effort: setting.effort } };
  if (setting.kind !== 'budget') throw unsupportedSetting(model, 'alpha');
  if (setting.tokens < MIN_BUDGET || setting.tokens >= maxTokens) {
    throw invalidRequest(`${param} must be at least ${MIN_BUDGET} thinking tokens and less than the output limit (${maxTokens}) for this model.`, param);
  }
  return { thinking: { type: 'enabled', budget_tokens: setting.tokens } };
}

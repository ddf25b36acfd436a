import type { JsonObject, ModelEntry } from '../../src/plugin-api.js';
import type { NeutralRequest, Part, Turn } from '../../src/toolkit/neutral.js';
import { reasoningPlan, unsupportedSetting } from '../../src/toolkit/vendor.js';

/**
 * Beta's thinking (docs/reasoning.md#beta): `generationConfig.thinkingConfig` from what the
 * caller asked — a `thinkingBudget` (0: off) for budget models, a `thinkingLevel` for level
 * models (never both: the vendor refuses that), `includeThoughts` when the caller asked to
 * reason, so the thoughts come back as reasoning — and the thought signatures a model turn
 * carries back.
 */

export function thinkingConfig(request: NeutralRequest, model: ModelEntry): JsonObject | undefined {
  const plan = reasoningPlan(request.reasoning, model, request.maxTokens ?? model.maxOutputTokens);
  if (!plan) return undefined;
  const shown = plan.shown ? { includeThoughts: true } : {};
  const setting = plan.setting;
  switch (setting.kind) {
    case 'off':
      return { thinkingBudget: 0 };
    case 'budget':
      return { thinkingBudget: setting.tokens, ...shown };
    case 'level':
      return { thinkingLevel: setting.level, ...shown };
    default:
      throw unsupportedSetting(model, 'beta');
  }
}

/** The beta thought signature a model turn's reasoning parts carry (the last one), if any; other families' states are never sent to beta. */
export function carriedSignature(turn: Turn): string | undefined {
  let signature: string | undefined;
  for (const part of turn.parts) if (part.type === 'reasoning' && part.state?.family === 'beta') signature = part.state.data;
  return signature;
}

/** A call's own signature, when its part carries one of beta's. */
export const callSignature = (part: Extract<Part, { type: 'tool_call' }>): string | undefined => (part.state?.family === 'beta' ? part.state.data : undefined);

import type { ModelEntry } from '../catalogue/catalogue.js';
import { GatewayError, invalidRequest } from '../http/errors.js';
import type { ReasoningEffort, ReasoningRequest } from './request.js';

/**
 * What a caller asked of the model's reasoning (`request.reasoning`) as the setting its vendor
 * takes, by the model's catalogue entry (src/catalogue/reasoning.ts, docs/reasoning.md). Every
 * vendor translator starts from this, so the table lives in one place; the vendor writes the
 * setting in its own fields and checks its own constraints.
 */

export type ReasoningSetting =
  /** Ask for no reasoning. */
  | { kind: 'off' }
  /** Think with a budget of tokens. */
  | { kind: 'budget'; tokens: number }
  /** Think adaptively at an effort (`low`…`max`). */
  | { kind: 'adaptive'; effort: string }
  /** Think at a level (`MINIMAL`…`HIGH`). */
  | { kind: 'level'; level: string }
  /** The reference format's `reasoning_effort`. */
  | { kind: 'effort'; effort: string };

export interface ReasoningPlan {
  setting: ReasoningSetting;
  /** The caller's parameter that asked (named in refusals). */
  param: string;
  /** The caller asked for reasoning (not `none` or off) and did not ask to omit its text: vendors that show it only on request are asked to. */
  shown: boolean;
}

/** The least an effort-derived thinking budget may be; below it the model is asked not to think. */
const MIN_THINKING_BUDGET = 1024;

/** An explicit budget read as an effort, for a vendor that takes no budgets: ≤1024 low, ≤8192 medium, else high. */
const effortOfBudget = (tokens: number): ReasoningEffort => (tokens <= 1024 ? 'low' : tokens <= 8192 ? 'medium' : 'high');

/**
 * The vendor setting for what `reasoning` asks of `model` (null: nothing asked, the vendor's
 * default). `maxTokens` is the output limit the vendor will be sent: budgets derived from an
 * effort are kept below it (and dropped when that leaves less than the minimum). Asking a model
 * that does not reason to reason is a 400 naming the caller's parameter.
 */
export function reasoningPlan(reasoning: ReasoningRequest | null, model: ModelEntry, maxTokens: number): ReasoningPlan | null {
  if (reasoning === null) return null;
  const { param } = reasoning;
  const effort: ReasoningEffort = reasoning.kind === 'budget' ? effortOfBudget(reasoning.tokens) : reasoning.kind === 'off' ? 'none' : reasoning.effort;
  const asked = effort !== 'none';
  const shown = asked && reasoning.omitted !== true;
  const spec = model.reasoning;
  if (spec.style === 'none') {
    if (!asked || reasoning.ifReasoning) return null;
    throw invalidRequest(`${param} is not supported here: the model '${model.id}' does not reason.`, param);
  }
  if (reasoning.kind === 'budget' && (spec.style === 'budget' || spec.style === 'adaptive')) {
    // An explicit budget goes as it is; the vendor's limits on it are its translator's to check.
    return { setting: { kind: 'budget', tokens: reasoning.tokens }, param, shown };
  }
  if (spec.style === 'budget') {
    const tokens = Math.min(spec.efforts[effort], maxTokens - 1);
    return { setting: tokens < MIN_THINKING_BUDGET ? { kind: 'off' } : { kind: 'budget', tokens }, param, shown };
  }
  const word = spec.efforts[effort];
  if (spec.style === 'adaptive') return { setting: word === 'off' ? { kind: 'off' } : { kind: 'adaptive', effort: word }, param, shown };
  if (spec.style === 'level') return { setting: { kind: 'level', level: word }, param, shown };
  return { setting: { kind: 'effort', effort: word }, param, shown };
}

/** A setting this vendor does not speak: the catalogue gives the model a style its family has no mapping for (a 500: the operator's to fix). */
export function unsupportedSetting(model: ModelEntry, family: string): GatewayError {
  return new GatewayError(
    500,
    `The catalogue gives the model '${model.id}' the reasoning style '${model.reasoning.style}', which the ${family} translator does not speak.`,
  );
}

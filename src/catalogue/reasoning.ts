import { REASONING_EFFORTS, type ReasoningEffort } from '../neutral/request.js';

/**
 * How a model reasons, as the catalogue says (`reasoning:` of a model in config/models.yaml):
 * the style of setting its vendor takes, and what each effort a caller may name becomes in it.
 * Each style has a default table (docs/reasoning.md); a model's `efforts:` overrides entries.
 *
 * - `adaptive`: the vendor decides how much to think at an effort (`low`…`max`, `off` for none);
 * - `budget`: a number of thinking tokens (0 for none);
 * - `level`: a thinking level (`MINIMAL`, `LOW`, `MEDIUM`, `HIGH`; such models cannot stop thinking);
 * - `effort`: the reference format's `reasoning_effort` (`none`…`xhigh`);
 * - `none`: the model does not reason; asking it to is a 400 (the default when absent).
 */

export const REASONING_STYLES = ['adaptive', 'budget', 'level', 'effort', 'none'] as const;
export type ReasoningStyle = (typeof REASONING_STYLES)[number];

type EffortTable<T> = Readonly<Record<ReasoningEffort, T>>;

export type ReasoningSpec =
  { style: 'none' } | { style: 'budget'; efforts: EffortTable<number> } | { style: 'adaptive' | 'level' | 'effort'; efforts: EffortTable<string> };

/** The words each worded style may map an effort to. */
const WORDS = {
  adaptive: ['off', 'low', 'medium', 'high', 'xhigh', 'max'],
  level: ['MINIMAL', 'LOW', 'MEDIUM', 'HIGH'],
  effort: ['none', 'minimal', 'low', 'medium', 'high', 'xhigh'],
} as const;

/** The suggested table (docs/reasoning.md#the-effort-table), per style. */
const DEFAULTS = {
  budget: { none: 0, minimal: 1024, low: 1024, medium: 2048, high: 4096, xhigh: 8192, max: 16384 },
  adaptive: { none: 'off', minimal: 'low', low: 'low', medium: 'medium', high: 'high', xhigh: 'high', max: 'max' },
  level: { none: 'MINIMAL', minimal: 'MINIMAL', low: 'LOW', medium: 'MEDIUM', high: 'HIGH', xhigh: 'HIGH', max: 'HIGH' },
  effort: { none: 'none', minimal: 'minimal', low: 'low', medium: 'medium', high: 'high', xhigh: 'high', max: 'high' },
} as const satisfies { budget: EffortTable<number> } & Record<keyof typeof WORDS, EffortTable<string>>;

export interface RawReasoning {
  style: ReasoningStyle;
  efforts?: Partial<Record<ReasoningEffort, string | number>>;
}

const efforts = (values: object) => ({
  type: 'object',
  additionalProperties: false,
  properties: Object.fromEntries(REASONING_EFFORTS.map((effort) => [effort, values])),
});
const whenStyle = (style: ReasoningStyle, then: object) => ({ if: { properties: { style: { const: style } } }, then });

/** The JSON Schema of a model's `reasoning:` entry. */
export const reasoningSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['style'],
  properties: { style: { enum: [...REASONING_STYLES] }, efforts: { type: 'object' } },
  allOf: [
    whenStyle('none', { not: { required: ['efforts'] } }),
    whenStyle('budget', { properties: { efforts: efforts({ type: 'integer', minimum: 0 }) } }),
    ...(Object.keys(WORDS) as Array<keyof typeof WORDS>).map((style) => whenStyle(style, { properties: { efforts: efforts({ enum: [...WORDS[style]] }) } })),
  ],
} as const;

/** A model's reasoning entry with its style's defaults filled in; absent: the model does not reason. */
export function reasoningSpec(raw: RawReasoning | undefined): ReasoningSpec {
  if (!raw || raw.style === 'none') return { style: 'none' };
  if (raw.style === 'budget') return { style: 'budget', efforts: { ...DEFAULTS.budget, ...(raw.efforts as Partial<Record<ReasoningEffort, number>>) } };
  return { style: raw.style, efforts: { ...DEFAULTS[raw.style], ...(raw.efforts as Partial<Record<ReasoningEffort, string>>) } };
}

/**
 * "Clients as shipped": a parameter the vendor can only honour approximately (an output limit
 * above the model's, a hosted tool the family cannot run, a deferred tool offered at once) is
 * adjusted, never silently: the answer says so in `x-gateway-adjusted`, the request's log line
 * carries it and `gateway_adjusted_parameters_total{param}` counts it. An operator who prefers
 * the refusals sets `parameters: strict`, and each adjustment is answered with its 400 instead.
 */

/** `lenient` (the default): adjust and announce; `strict`: refuse what would be adjusted. */
export type ParameterPolicy = 'lenient' | 'strict';

export const PARAMETER_POLICIES: readonly ParameterPolicy[] = ['lenient', 'strict'];

/** The answer header listing a call's adjustments: `param=what[, …]`. */
export const ADJUSTED_HEADER = 'x-gateway-adjusted';

export interface Adjustment {
  /** The parameter in the caller's format's notation, indices included (`tools[7]`, `max_tokens`). */
  readonly param: string;
  /** What was done, short and without spaces or commas (`clamped:8192`, `omitted:web_search`). */
  readonly action: string;
}

/** The header value for a call's adjustments. */
export const adjustedHeader = (adjustments: readonly Adjustment[]): string => adjustments.map(({ param, action }) => `${param}=${action}`).join(', ');

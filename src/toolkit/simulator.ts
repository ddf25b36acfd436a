/**
 * A vendor's simulator: a real HTTP server speaking the vendor's wire format (`SimServer`), the
 * reply it plans from a request (scripted by directives in the prompt, for tests), and the faults
 * those directives inject. Used by the vendor plugins' `vendor.simulator`.
 */

export { faultFromDirectives } from '../simulators/faults.js';
export { SimServer } from '../simulators/sim-server.js';
export type { SimContext, SimOptions, SimRoute, SimVendor, VendorErrorBody } from '../simulators/sim-server.js';
export { countWords, embedText, planReply, readDirectives } from '../simulators/reply-plan.js';
export type { ReplyPlan, SimChoice, SimRequest, SimToolChoice } from '../simulators/reply-plan.js';

/**
 * What a vendor plugin implements and translates with: the `Translator` its `translator` hook
 * creates per call, the upstream request it returns (or a local answer), an upstream error turned
 * into the gateway's envelope, token counts read from an upstream body, the neutral reasoning
 * request planned against the model's reasoning style, and the turns a vendor can replay (the
 * reasoning states the attempt's deployment may be sent among them). Used by the vendor plugins only.
 */

export type { LocalAnswer, StreamTranslator, Translator, UpstreamRequest } from '../chain/translator.js';
export { upstreamError } from '../http/upstream-status.js';
export { tokenCount } from '../reference/upstream-json.js';
export { reasoningPlan, unsupportedSetting } from '../neutral/reasoning.js';
export { replaysNone, withReplayableTurns } from '../neutral/replayable.js';
export { replaysOnDeployment, requestOnDeployment } from '../neutral/reasoning-state.js';

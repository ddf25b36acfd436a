import type { Call } from './call.js';

/**
 * The conversation a call belongs to, as its format names it (docs/deployments.md#affinity-and-sealed-reasoning-state):
 * kept as the call's affinity key, namespaced by the caller's key so that two keys never share
 * one, so the exchange keeps the conversation on one deployment and the vendor's prompt cache
 * keeps hitting. The first source a format offers wins; a call without one is left as it is.
 */
export function keepAffinity(call: Call, conversation: unknown): void {
  if (call.affinityKey !== null || typeof conversation !== 'string' || conversation === '' || !call.key) return;
  call.affinityKey = `${call.key.id}:${conversation}`;
}

import type { Call, JsonObject } from '../../src/plugin-api.js';
import { keepAffinity } from '../../src/toolkit/ingress.js';
import { isObject } from '../../src/toolkit/json.js';
import { pinToReasoningState } from '../../src/toolkit/neutral.js';

/**
 * What keeps a Responses conversation on one upstream deployment
 * (docs/deployments.md#affinity-and-sealed-reasoning-state): its identity — Codex CLI's session
 * id in `client_metadata.session_id`, else `prompt_cache_key` — and, for a stored conversation
 * continued by `previous_response_id`, the deployment that answered its latest response (or, for
 * one stored before the store kept that, the deployment that issued its latest reasoning state).
 */

export function keepConversation(call: Call): void {
  const metadata = call.body['client_metadata'];
  if (isObject(metadata)) keepAffinity(call, metadata['session_id']);
  keepAffinity(call, call.body['prompt_cache_key']);
}

/**
 * Pins the call to the deployment that answered the response it continues (`answeredBy`), else to
 * the one that issued the latest reasoning item of `history`, the conversation's items.
 */
export function pinToStored(call: Call, answeredBy: string | null | undefined, history: readonly JsonObject[]): void {
  if (answeredBy) {
    call.pinnedDeployment = answeredBy;
    return;
  }
  for (let i = history.length - 1; i >= 0; i--) {
    const item = history[i] as JsonObject;
    if (item['type'] === 'reasoning' && typeof item['encrypted_content'] === 'string') {
      pinToReasoningState(call, item['encrypted_content']);
      return;
    }
  }
}

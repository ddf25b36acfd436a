import { RESPONSE_STATE } from '../../plugins/ingress-responses/store/state.js';
import type { ResponseStore } from '../../plugins/ingress-responses/store/responses.js';
import { STATUS_STATE } from '../../plugins/status/store/state.js';
import type { StatusStore } from '../../plugins/status/store/status.js';
import { SIGNATURE_STATE } from '../../plugins/vendor-beta/store/state.js';
import type { SignatureStore } from '../../plugins/vendor-beta/store/signatures.js';
import type { Store } from '../../src/store/store.js';

/** The built-in plugins' own sub-stores, by the names the store contract's suites use. */
export interface PluginStates {
  readonly signatures: SignatureStore;
  readonly status: StatusStore;
  readonly responses: ResponseStore;
}

/**
 * `store` with the built-in plugins' sub-stores opened through its extension seam, as the
 * plugins open them (`store.extend`): the store contract's suites run each on both backends.
 */
export async function withPluginStates<S extends Store>(store: S): Promise<S & PluginStates> {
  const states: PluginStates = {
    signatures: await store.extend(SIGNATURE_STATE),
    status: await store.extend(STATUS_STATE),
    responses: await store.extend(RESPONSE_STATE),
  };
  return Object.assign(Object.create(store) as S, states);
}

import { ReasoningSeal, type OpenedState } from '../../src/neutral/reasoning-state.js';
import type { ReasoningState } from '../../src/neutral/request.js';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';

/**
 * The reasoning seal of the unit tests' calls (a store of the test process's own, in memory), and
 * states sealed as those calls hand them out: for no key (the unit tests' calls have none) and the
 * `default` deployment unless told. An end-to-end test opens what a gateway handed out with
 * `gatewaySeal(harness.store)`.
 */

export const TEST_SEAL = await ReasoningSeal.load(SqliteStore.open(':memory:').settings);

export const sealed = (state: ReasoningState, deployment = 'default', keyId = ''): string => TEST_SEAL.seal(keyId, state, deployment);

/** The seal of a gateway's store: what it hands out, opened. */
export const gatewaySeal = (store: Store): Promise<ReasoningSeal> => ReasoningSeal.load(store.settings);

/** A writer's seal whose output a test can read: `sealed(family.kind.data)`. */
export const shownSeal = (state: ReasoningState): string => `sealed(${state.family}.${state.kind}.${state.data})`;

/** `value` with every state the unit tests' seal sealed shown as `shownSeal` writes it: a written reply compared whole. */
export function unsealed(value: unknown): unknown {
  if (typeof value === 'string') {
    const state = value.startsWith('gw2.') ? TEST_SEAL.open('', value) : null;
    return state && state !== 'unverified' ? shownSeal(state) : value;
  }
  if (Array.isArray(value)) return value.map(unsealed);
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, unsealed(item)]));
  return value;
}

/** A format reader's opener for the unit tests' seal (no call: nothing is announced). */
export const openForTest = (text: string): OpenedState => TEST_SEAL.open('', text);

/** The state a gateway on `store` handed the key `keyId` (null for none of its seals). */
export async function openedBy(store: Store, keyId: string, text: unknown): Promise<ReasoningState | null> {
  const state = typeof text === 'string' ? (await gatewaySeal(store)).open(keyId, text) : null;
  return state === 'unverified' ? null : state;
}

/** `state` as a gateway on `store` would hand it to the key `keyId`, from `deployment`. */
export const sealedBy = async (store: Store, keyId: string, state: ReasoningState, deployment = 'default'): Promise<string> =>
  (await gatewaySeal(store)).seal(keyId, state, deployment);

/** `state` in the gateway's legacy envelope (`gw1.`, unsealed), which every gateway still reads, whatever its store and the key. */
export const legacyEnvelope = (state: ReasoningState): string =>
  `gw1.${Buffer.from(JSON.stringify([state.family, state.kind, state.data])).toString('base64url')}`;

/** `text` with every state the unit tests' seal sealed shown as `shownSeal` writes it: a written body or stream compared as text. */
export const unsealedText = (text: string): string => text.replace(/gw2\.[A-Za-z0-9_-]+/g, (envelope) => String(unsealed(envelope)));

import type { ModelEntry } from '../catalogue/catalogue.js';
import type { KeyRecord } from '../store/store.js';
import type { Call, Outcome } from './call.js';

/**
 * The life of a call, as types. A call passes these phases in order, and each type carries what
 * is known by then, so code that needs the key or the canonical model cannot be written against
 * a call that may not have them yet:
 *
 *   received      endpoint, headers, timings               (the `onHeaders` hooks run)
 *   authenticated + the caller's key                       (provided by a plugin: `auth`)
 *   resolved      + the body checked by its format, the canonical model and family
 *                                                          (provided by a plugin: `model-normalise`;
 *                                                           the `onRequest` gatekeepers run)
 *   admitted      the store steps of admission ran        (rate cap, ceiling: one round trip)
 *   answered      + the attempt's deployment; upstream attempts, the reply relayed
 *                                                          (translators, proxy core; the upstream hooks run)
 *   settled       outcome and usage final                  (the completion hooks: ledger, metrics, …)
 *
 * The facts a plugin adds (`key`, `model`) are declared by the plugin that provides them and by
 * the plugins that need them (src/chain/plugin.ts); the boot checks the YAML order against those
 * declarations (src/chain/plugin-facts.ts). One `Call` object lives through every phase: the types
 * are views of it, at no cost per request.
 */

/** What a plugin may provide to the call for later plugins (and the core) to read. */
export type Fact = 'key' | 'model';

/** The phrase a boot error uses for each fact. */
export const FACT_NAMES: Readonly<Record<Fact, string>> = { key: "the caller's key", model: 'the canonical model' };

/** The hook during which each fact is provided: the key from the headers alone, the model once the body is read. */
export const FACT_HOOK: Readonly<Record<Fact, 'onHeaders' | 'onRequest'>> = { key: 'onHeaders', model: 'onRequest' };

/** What each fact makes known on the call. */
interface Known {
  /** The key that authenticated the call. */
  readonly key: KeyRecord;
  /** The canonical catalogue entry (on a fallback, the sibling that answers). */
  readonly model: ModelEntry;
  readonly family: string;
}

/** The call's fields each fact fills. */
interface FieldsOf {
  key: 'key';
  model: 'model' | 'family';
}

/** The call as seen by a plugin that needs the facts `N` (a mapped type, so that TypeScript sees that needing less is always allowed). */
export type CallWith<N extends Fact> = Call & { readonly [F in FieldsOf[N]]: Known[F] };

/** Received: what the socket and the route said; nothing is known of the caller or the model. */
export type ReceivedCall = Call;
/** Authenticated: the caller's key is known. */
export type AuthenticatedCall = CallWith<'key'>;
/** Model resolved: the body is checked and the canonical model is known (an upstream endpoint's call only). */
export type ResolvedCall = CallWith<'model'>;
/** Admitted: resolved, and past the store steps of admission (the rate cap's take, the ceiling's reservation). */
export type AdmittedCall = ResolvedCall;
/**
 * Answered, while an upstream attempt is under way: admitted, and the attempt's deployment is
 * chosen (the exchange sets it before the attempt's request is written; a retry on another
 * deployment sets it again). What the upstream hooks (`onUpstreamRequest`, `onUpstreamResponse`) see.
 */
export type AnsweringCall = AdmittedCall & { readonly deployment: string };
/** Settled: the outcome is final. Key and model are there only if the call got that far (a 401 has neither). */
export type SettledCall = Call & { readonly outcome: Exclude<Outcome, 'pending'> };

/** Whether an upstream call has reached the resolved phase; the core asks before any upstream work. */
export function isResolved(call: Call): call is ResolvedCall {
  return call.model !== null;
}

/** The call entering an upstream attempt on `deployment`: how the exchange reaches the answered phase. */
export function answeringOn(call: AdmittedCall, deployment: string): AnsweringCall {
  call.deployment = deployment;
  return call as AnsweringCall;
}

/** Whether a call's outcome is decided; the core asks before the completion hooks run. */
export function isSettled(call: Call): call is SettledCall {
  return call.outcome !== 'pending';
}

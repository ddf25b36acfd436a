/**
 * The plugin contract: what every plugin author needs of the core — defining a plugin and its
 * hooks, the call, refusing it, the context a plugin's setup receives, money. The shared
 * toolkits (the neutral request and reply, the reference format, SSE, vendor and ingress helpers,
 * simulators, routes, secrets) are named modules under `src/toolkit/` that a plugin imports on
 * purpose. A plugin under plugins/ reaches the core through this module and those only
 * (test/unit/plugin-surface.test.ts holds both lists; docs/plugins.md says which toolkit is for what).
 */

// A plugin: its definition, the context its setup receives, its hooks.
export { definePlugin } from './chain/plugin.js';
export type { PluginContext, PluginHooks } from './chain/plugin.js';
export { PluginConfigError } from './chain/resolve-plugins.js';
export type { AttemptFailure, RetryDecision, RetryPolicy } from './chain/retry.js';

// The call every hook sees (a hook's call is typed by the facts its plugin needs: src/chain/phases.ts), and the endpoints an ingress declares.
export type { Call, Endpoint, JsonObject, Operation, Usage } from './chain/call.js';
export type { CallWith, ResolvedCall, SettledCall } from './chain/phases.js';
// An answer kept as the caller got it and given again to a later call (the response cache).
export type { KeptAnswer } from './chain/kept-answer.js';

// Refusing: the error every hook throws, in the envelope of the format called.
export { GatewayError, invalidRequest, modelNotFound } from './http/errors.js';
export type { ErrorStatus } from './http/errors.js';

// The context: the catalogue and the clock.
export type { Capability, Catalogue, ModelEntry } from './catalogue/catalogue.js';
export type { Clock } from './clock.js';

// Money and billing.
export { formatUsd } from './catalogue/money.js';
export type { Nanos } from './catalogue/money.js';
export { costOf } from './catalogue/cost.js';
export type { Cost } from './catalogue/cost.js';
export { cycleOf } from './billing/cycle.js';
export type { BillingCycle } from './billing/cycle.js';

// Upstream deployments: the name of a family's one deployment in the single form (docs/deployments.md).
export { DEFAULT_DEPLOYMENT } from './upstreams/deployments.js';

// The store a plugin's setup receives, and the seam through which a plugin keeps state of its own (docs/plugins.md).
export type { CycleSpend, KeyRecord, LedgerRow, SpendLimit, Store } from './store/store.js';
export type { BatchWriter, ExtensionMigration, PostgresHandle, SqliteHandle, StoreExtension } from './store/extension.js';

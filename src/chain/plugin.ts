import type { Router } from 'express';
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Catalogue } from '../catalogue/catalogue.js';
import type { Clock } from '../clock.js';
import type { Env } from '../config/load.js';
import type { GatewayConfig } from '../config/schema.js';
import type { Store } from '../store/store.js';
import type { VendorDeclaration } from '../vendors/vendor.js';
import type { Call, Endpoint, EndpointName, JsonObject } from './call.js';
import type { AnsweringCall, CallWith, Fact, SettledCall } from './phases.js';
import type { RetryPolicy } from './retry.js';
import type { TranslatorProvider, UpstreamRequest } from './translator.js';
import type { WebSocketRoute } from './websocket.js';

/** What a plugin gets at setup: shared services, never per-request state. */
export interface PluginContext {
  readonly config: GatewayConfig;
  readonly catalogue: Catalogue;
  readonly store: Store;
  /** A child logger named after the plugin. */
  readonly log: Logger;
  /** The gateway's own prom-client registry (not the global one). */
  readonly metrics: Registry;
  /**
   * The Prometheus text of `/metrics`: this registry's, or in a worker of GATEWAY_WORKERS every
   * worker's registry summed by the primary (src/cluster/group-metrics.ts).
   */
  scrapeMetrics(): Promise<string>;
  readonly clock: Clock;
  /** The families the enabled vendor plugins declare, in chain order. */
  readonly families: readonly string[];
  /**
   * The vendor credential of a family's deployment (a translator passes `call.deployment`, set
   * before it is created); without one, the family's first deployment's. Read per call: a reload
   * may change it.
   */
  upstreamCredential(family: string, deployment?: string | null): string | undefined;
  /** Every deployment's credential, of every family, as now configured: what must never be kept or shown in clear. */
  upstreamCredentials(): readonly string[];
  /** The base URL of a family's deployment (`call.deployment`) as now configured, or undefined: where an attempt went (telemetry's `server.address`). */
  upstreamBaseUrl(family: string, deployment: string): string | undefined;
  /**
   * The environment the gateway's config was loaded with (`process.env` for `npm start`; an
   * embedding program's or a test's own): a plugin configured by variables of a standard
   * (`OTEL_*`) reads them here, at setup, never from `process.env`.
   */
  readonly env: Env;
  /** Families answered by a built-in simulator instead of the real vendor. */
  readonly simulatedFamilies: readonly string[];
  /**
   * Hands a request to the gateway's own routes (as if it had arrived on the gateway's port):
   * for a plugin whose pages live on a port of their own but call the gateway's APIs.
   */
  dispatch(req: IncomingMessage, res: ServerResponse): void;
}

/** Status and headers of one upstream answer, before its body. */
export interface UpstreamHead {
  status: number;
  headers: IncomingHttpHeaders;
  /** 1 for the first attempt. */
  attempt: number;
}

/**
 * The hooks a plugin may implement, one per phase of a call (src/chain/phases.ts). Request-side
 * hooks run in config order, response-side hooks in reverse (an onion). Only `onHeaders`,
 * `onRequest` and the completion hooks may be asynchronous: the streamed phases are synchronous
 * so that no plugin can stall a stream. `N` is what the plugin declared it `needs`: its hooks see
 * a call that has it, and its request hooks run only on calls that reach it (a plugin that needs
 * the model has no `onRequest` for `GET /v1/usage`, which names none).
 */
export interface PluginHooks<N extends Fact = never> {
  /**
   * Before the request body is read: checks that need only the headers (the key), so that a
   * refused caller never makes the gateway buffer a body. Throw a GatewayError to refuse.
   */
  onHeaders?(call: CallWith<Exclude<N, 'model'>>): void | Promise<void>;
  /** After the body is read and checked by its format, before the upstream call: gatekeeping (throw a GatewayError to refuse) and enrichment of the call. */
  onRequest?(call: CallWith<N>): void | Promise<void>;
  /** Each upstream attempt, after translation: may add headers. */
  onUpstreamRequest?(call: AnsweringCall & CallWith<N>, request: UpstreamRequest): void;
  /** Each upstream answer's status and headers. */
  onUpstreamResponse?(call: AnsweringCall & CallWith<N>, head: UpstreamHead): void;
  /** Each piece of the reply written to the caller (an SSE frame or a whole body). */
  onResponseChunk?(call: Call, chunk: string | Buffer): void;
  /**
   * Exactly once per call, with the final usage and outcome: after a success (before its last
   * byte is written), a refusal, an upstream failure, or the caller going away. A refused call
   * may have no key or model: the settled call says only what the call got to.
   */
  onComplete?(call: SettledCall): void | Promise<void>;
  /**
   * Like `onComplete`, for a write that depends on no other plugin's completion (a stored
   * response). Every such hook is started before the first `onComplete` hook, so its write joins
   * the ledger row's group commit instead of waiting for it and taking a commit of its own; the
   * chain awaits it with the others, before the last byte.
   */
  onCompleteWrite?(call: SettledCall): void | Promise<void>;
  /**
   * Answers for endpoints the gateway serves itself (e.g. `usage`): called after the
   * onRequest hooks, returns the JSON body of a 200.
   */
  responders?: Partial<Record<EndpointName, (call: CallWith<Exclude<N, 'model'>>) => JsonObject | Promise<JsonObject>>>;
  /** Public routes outside /v1 (e.g. `/metrics`, `/status`), mounted before the 404 fallback. */
  routes?(router: Router): void;
  /** Routes under `/admin/v1`, behind the admin token. */
  adminRoutes?(router: Router): void;
  /** A translator between the neutral request/reply and one vendor family's wire format. */
  translator?: TranslatorProvider;
  /** The call endpoints of an ingress format (see src/chain/ingress.ts): the route table is built from them. */
  endpoints?: readonly Endpoint[];
  /** Which of its endpoints also take a WebSocket upgrade, and the protocol of their messages (src/chain/websocket.ts). */
  webSockets?: readonly WebSocketRoute[];
  /** Whether and when a failed upstream attempt is tried again (at most one plugin provides it). */
  retryPolicy?: RetryPolicy;
  /** At shutdown, in reverse chain order. */
  close?(): void | Promise<void>;
}

export interface Plugin<Config = Record<string, unknown>, N extends Fact = Fact> {
  readonly name: string;
  /**
   * Facts this plugin adds to the call for later plugins (src/chain/phases.ts): `auth` provides
   * the `key` (in `onHeaders`), `model-normalise` the `model` (in `onRequest`).
   */
  readonly provides?: readonly Fact[];
  /**
   * Facts this plugin reads: the boot refuses a chain where a plugin that provides one does not
   * stand earlier, and the plugin's hooks see a call that has them.
   */
  readonly needs?: readonly N[];
  /** Plugins that must stand earlier in the chain for a reason other than a fact (a refusal's order); checked at boot. */
  readonly after?: readonly string[];
  /** Plugins that must stand later in the chain (e.g. the ledger after the ceiling); checked at boot. */
  readonly before?: readonly string[];
  /** A vendor plugin's family: its name, default upstream and simulator (see src/vendors/vendor.ts). */
  readonly vendor?: VendorDeclaration;
  /** JSON Schema of this plugin's `config:` block in the YAML (defaults are filled in). */
  readonly configSchema?: object;
  setup(context: PluginContext, config: Config): PluginHooks<N> | Promise<PluginHooks<N>>;
}

/**
 * Identity helper that gives a plugin module its types: `needs: ['key', 'model']` makes every
 * hook's call carry the key and the model.
 */
export function definePlugin<Config = Record<string, unknown>, const N extends Fact = never>(plugin: Plugin<Config, N>): Plugin<Config, N> {
  return plugin;
}

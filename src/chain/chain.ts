import type { Router } from 'express';
import type { Logger } from 'pino';
import type { Call, Endpoint, EndpointName, JsonObject } from './call.js';
import { GatewayError } from '../http/errors.js';
import type { AnsweringCall, Fact, SettledCall } from './phases.js';
import type { PluginHooks, UpstreamHead } from './plugin.js';
import { PluginConfigError } from './resolve-plugins.js';
import type { RetryPolicy } from './retry.js';
import type { TranslatorProvider, UpstreamRequest } from './translator.js';
import type { WebSocketRoute } from './websocket.js';
import { isStoreUnavailable } from '../store/unavailable.js';

export interface LoadedPlugin {
  readonly name: string;
  /** Where the YAML lists it (`<config file>: /plugins/3`), for boot errors. */
  readonly where: string;
  readonly hooks: PluginHooks<Fact>;
  /** The facts it declared it provides and needs (src/chain/phases.ts). */
  readonly provides?: readonly Fact[];
  readonly needs?: readonly Fact[];
}

type Hooks = PluginHooks<Fact>;

/**
 * A hook as the chain holds it: taking the call at whatever phase it is in. The chain is where a
 * call passes from one phase to the next, so this is the one place the phase types are erased:
 * a plugin's hook is typed by what it `needs`, and the boot's facts check (plugin-facts.ts) is
 * what guarantees an earlier plugin provided it.
 */
type Hook<K extends keyof Hooks> =
  NonNullable<Hooks[K]> extends () => unknown
    ? NonNullable<Hooks[K]>
    : NonNullable<Hooks[K]> extends (call: never, ...rest: infer Rest) => infer Result
      ? (call: Call, ...rest: Rest) => Result
      : never;

/** Hooks of one kind, bound to their plugins, in the order they must run. */
function collect<K extends keyof Hooks>(plugins: readonly LoadedPlugin[], kind: K): Array<Hook<K>> {
  const hooks: Array<Hook<K>> = [];
  for (const plugin of plugins) {
    const hook = plugin.hooks[kind];
    if (typeof hook === 'function') hooks.push((hook as (...args: unknown[]) => unknown).bind(plugin.hooks) as Hook<K>);
  }
  return hooks;
}

/** Runs hooks one after another; synchronous ones cost no await. */
async function runInOrder(hooks: ReadonlyArray<(call: Call) => void | Promise<void>>, call: Call): Promise<void> {
  for (const hook of hooks) {
    const pending = hook(call);
    if (pending) await pending;
    // A request hook answered the call with a kept answer (the response cache's hit): the
    // gatekeepers after it (the ceiling, the retry plugin's fallback) have nothing to hold or
    // choose for a call that costs nothing and goes to no upstream.
    if (call.givenAnswer !== null) return;
  }
}

/**
 * Runs the hooks of the configured plugins. The hook lists are built once at boot so that a
 * request pays only for the hooks that exist.
 */
export class Chain {
  readonly names: readonly string[];
  private readonly headerHooks: Array<Hook<'onHeaders'>>;
  private readonly requestHooks: Array<Hook<'onRequest'>>;
  /** The request hooks of plugins that do not need the model: those a call that names none (`GET /v1/usage`) passes. */
  private readonly modelFreeRequestHooks: Array<Hook<'onRequest'>>;
  /** The plugin that provides the caller's key, if one is enabled: after the header hooks, every call has one. */
  private readonly keyProvider: string | undefined;
  private readonly upstreamRequestHooks: Array<Hook<'onUpstreamRequest'>>;
  private readonly upstreamResponseHooks: Array<Hook<'onUpstreamResponse'>>;
  private readonly chunkHooks: Array<Hook<'onResponseChunk'>>;
  private readonly completeHooks: Array<Hook<'onComplete'>>;
  private readonly completeWriteHooks: Array<Hook<'onCompleteWrite'>>;
  private readonly closeHooks: Array<Hook<'close'>>;
  private readonly translators = new Map<string, TranslatorProvider>();
  private readonly responders = new Map<EndpointName, (call: Call) => JsonObject | Promise<JsonObject>>();
  /** The retry policy of the plugin that provides one; none → every attempt is the only one. */
  readonly retryPolicy: RetryPolicy | undefined;
  /** The call endpoints the ingress plugins serve, in chain order. */
  readonly endpoints: readonly Endpoint[];
  /** The endpoints the ingress plugins serve in WebSocket mode too (src/chain/websocket.ts). */
  readonly webSockets: readonly WebSocketRoute[];

  constructor(
    private readonly plugins: readonly LoadedPlugin[],
    private readonly log: Logger,
  ) {
    const reversed = [...plugins].reverse();
    this.names = plugins.map((p) => p.name);
    this.headerHooks = collect(plugins, 'onHeaders');
    this.requestHooks = collect(plugins, 'onRequest');
    this.modelFreeRequestHooks = collect(
      plugins.filter((p) => !p.needs?.includes('model')),
      'onRequest',
    );
    this.keyProvider = plugins.find((p) => p.provides?.includes('key'))?.name;
    this.upstreamRequestHooks = collect(plugins, 'onUpstreamRequest');
    this.upstreamResponseHooks = collect(reversed, 'onUpstreamResponse');
    this.chunkHooks = collect(reversed, 'onResponseChunk');
    this.completeHooks = collect(reversed, 'onComplete');
    this.completeWriteHooks = collect(reversed, 'onCompleteWrite');
    this.closeHooks = collect(reversed, 'close');
    const policies = plugins.filter((p) => p.hooks.retryPolicy);
    const second = policies[1];
    if (second) throw new PluginConfigError(`${second.where}: plugin "${second.name}" provides a retry policy, and so does "${policies[0]?.name}"`);
    this.retryPolicy = policies[0]?.hooks.retryPolicy;
    const endpoints: Endpoint[] = [];
    for (const plugin of plugins) {
      for (const endpoint of plugin.hooks.endpoints ?? []) {
        const samePath = (e: Endpoint): boolean => e.path.toLowerCase() === endpoint.path.toLowerCase() && e.method === endpoint.method;
        if (endpoints.some((e) => samePath(e) || e.name === endpoint.name)) {
          throw new PluginConfigError(
            `${plugin.where}: plugin "${plugin.name}" serves ${endpoint.method} ${endpoint.path} (${endpoint.name}), which another plugin already serves`,
          );
        }
        endpoints.push(endpoint);
      }
      for (const [endpoint, responder] of Object.entries(plugin.hooks.responders ?? {})) {
        if (!responder) continue;
        if (this.responders.has(endpoint))
          throw new PluginConfigError(`${plugin.where}: plugin "${plugin.name}" answers ${endpoint}, which another plugin already answers`);
        this.responders.set(endpoint, responder.bind(plugin.hooks) as (call: Call) => JsonObject | Promise<JsonObject>);
      }
      const provider = plugin.hooks.translator;
      if (!provider) continue;
      if (this.translators.has(provider.family)) {
        throw new PluginConfigError(
          `${plugin.where}: plugin "${plugin.name}" translates the family ${provider.family}, which another plugin already translates`,
        );
      }
      this.translators.set(provider.family, provider);
    }
    this.endpoints = endpoints;
    this.webSockets = plugins.flatMap((plugin) => plugin.hooks.webSockets ?? []);
  }

  responder(endpoint: EndpointName): ((call: Call) => JsonObject | Promise<JsonObject>) | undefined {
    return this.responders.get(endpoint);
  }

  /** Lets every plugin mount its public routes, in config order. */
  mountRoutes(router: Router): void {
    for (const plugin of this.plugins) plugin.hooks.routes?.(router);
  }

  /** Lets every plugin mount its admin routes, in config order. */
  mountAdminRoutes(router: Router): void {
    for (const plugin of this.plugins) plugin.hooks.adminRoutes?.(router);
  }

  translator(family: string): TranslatorProvider | undefined {
    return this.translators.get(family);
  }

  /**
   * Header checks, in config order, before the body is read; a hook refuses the call by throwing.
   * The call leaves them authenticated when a plugin provides the key.
   */
  async onHeaders(call: Call): Promise<void> {
    await runInOrder(this.headerHooks, call);
    if (this.keyProvider !== undefined && call.key === null) {
      throw new GatewayError(500, `The plugin "${this.keyProvider}" provides the caller's key but left the call without one.`);
    }
  }

  /**
   * Gatekeeping, in config order; a hook refuses the call by throwing. A call that names no model
   * skips the hooks of plugins that need one.
   */
  onRequest(call: Call): Promise<void> {
    return runInOrder(call.endpoint.upstream ? this.requestHooks : this.modelFreeRequestHooks, call);
  }

  onUpstreamRequest(call: AnsweringCall, request: UpstreamRequest): void {
    for (const hook of this.upstreamRequestHooks) hook(call, request);
  }

  onUpstreamResponse(call: AnsweringCall, head: UpstreamHead): void {
    for (const hook of this.upstreamResponseHooks) hook(call, head);
  }

  get wantsChunks(): boolean {
    return this.chunkHooks.length > 0;
  }

  onResponseChunk(call: Call, chunk: string | Buffer): void {
    for (const hook of this.chunkHooks) hook(call, chunk);
  }

  /**
   * Completion hooks: the independent writes (`onCompleteWrite`) started first, then the
   * `onComplete` hooks one after another in reverse order (the ceiling's reads what the ledger's
   * left), then the writes awaited. Every hook runs even if one fails; the first failure is
   * rethrown so that a reply whose accounting failed is not acknowledged.
   */
  async onComplete(call: SettledCall): Promise<void> {
    let failure: unknown;
    const noteFailure = (error: unknown): void => {
      this.log.error({ err: error }, 'completion hook failed');
      if (isStoreUnavailable(error)) call.storeUnavailable = true;
      failure ??= error;
    };
    const writes: Array<Promise<void>> = [];
    for (const hook of this.completeWriteHooks) {
      try {
        // Caught as it starts: a write that fails while the hooks below run is not an unhandled rejection.
        const pending = hook(call);
        if (pending) writes.push(pending.catch(noteFailure));
      } catch (error) {
        noteFailure(error);
      }
    }
    for (const hook of this.completeHooks) {
      try {
        const pending = hook(call);
        if (pending) await pending;
      } catch (error) {
        noteFailure(error);
      }
    }
    if (writes.length) await Promise.all(writes);
    // eslint-disable-next-line @typescript-eslint/only-throw-error -- the first hook's failure, relayed as it was thrown.
    if (failure !== undefined) throw failure;
  }

  async close(): Promise<void> {
    for (const hook of this.closeHooks) {
      try {
        await hook();
      } catch (error) {
        this.log.error({ err: error }, 'plugin close failed');
      }
    }
  }
}

import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from 'pino';
import type { ParameterPolicy } from '../chain/adjustments.js';
import { Call, type Endpoint } from '../chain/call.js';
import type { Chain } from '../chain/chain.js';
import type { Clock } from '../clock.js';
import type { BodyReader, HeldBody } from '../http/body-reader.js';
import { GatewayError } from '../http/errors.js';
import { sendJson } from '../http/respond.js';
import { InFlight } from '../http/in-flight.js';
import { discardUnreadUpload } from '../http/unread-upload.js';
import { pinToSealedState, type ReasoningSeal } from '../neutral/reasoning-state.js';
import type { Store } from '../store/store.js';
import { admit } from './admission.js';
import { complete, endInFailure } from './completion.js';
import { exchange, type DeploymentChooser, type ExchangeDeps, type UpstreamSender } from './exchange.js';
import { succeeded } from './outcome.js';
import { relayBody, relayStreamed, replayKept, sendBody } from './relay.js';
import type { FailureLimits } from './upstream-errors.js';

export interface PipelineOptions {
  chain: Chain;
  proxy: UpstreamSender;
  clock: Clock;
  log: Logger;
  body: BodyReader;
  limits: FailureLimits;
  /** For the admission steps' round trip (rate cap, ceiling). */
  store: Store;
  /** What a call does with a parameter it can only approximate (config `parameters`). */
  parameters: ParameterPolicy;
  /** Each attempt's upstream deployment (src/upstreams/selection.ts). */
  deployments: DeploymentChooser;
  /** `retry.max`. */
  retryMax: number;
  /** The seal of the reasoning states calls hand out and read back, made at boot from the store. */
  reasoningSeal: ReasoningSeal;
}

/**
 * The life of a call, in four steps: admission (admission.ts), the upstream exchange with its
 * retries (exchange.ts), the relay of the answer (relay.ts), and completion exactly once, before
 * the last byte (completion.ts). How it ended is decided in one place (outcome.ts); the caller
 * going away is noticed in one place (here) and reaches every step through the call's signal.
 */
export class Pipeline {
  private readonly deps: ExchangeDeps;
  /** Calls from arrival to the end of their completion, which may outlast their connection. */
  private readonly calls = new InFlight();

  constructor(private readonly options: PipelineOptions) {
    const { chain, proxy, clock, log, limits, deployments, retryMax } = options;
    this.deps = { chain, proxy, clock, log, limits, deployments, retryMax };
  }

  /**
   * Resolves once every call in progress has ended — a call whose connection closed is still
   * aborting its upstream and writing its ledger row — or after `ms`; with how many have not.
   */
  settled(ms: number): Promise<number> {
    return this.calls.settled(ms);
  }

  /** Serves one call of `endpoint`; `params` are the values of its path's `{name}` parameters. */
  async serve(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse, params?: Readonly<Record<string, string>>): Promise<void> {
    const { chain, log } = this.options;
    const call = new Call(endpoint, req, res, this.options.clock.now());
    if (params) call.params = params;
    call.parameterPolicy = this.options.parameters;
    call.reasoningSeal = this.options.reasoningSeal;
    const ended = this.calls.enter();
    let body: HeldBody | undefined;
    res.once('close', () => {
      if (!res.writableFinished) call.callerLeft();
      // A body cut short (request timeout, bad framing) is never read whole, and the body reader
      // may never say so: the call cannot reach an upstream any more, nothing to wait for.
      if (!req.complete) ended();
    });
    try {
      const admitted = await admit(call, chain, this.options.body, this.options.store, (read) => (body = read));
      if (!admitted) {
        await this.respondLocally(call);
        return;
      }
      pinToSealedState(admitted);
      const answer = await exchange(admitted, this.deps);
      if (answer.kind === 'stream') await relayStreamed(call, answer.translator, answer.upstream, this.deps);
      else if (answer.kind === 'body') await relayBody(call, answer.translator, answer.raw, this.deps);
      else if (answer.kind === 'kept') await replayKept(call, answer.answer, this.deps);
      else await sendBody(call, answer.body, this.deps);
    } catch (thrown) {
      discardUnreadUpload(req, res);
      await endInFailure(call, thrown, chain, log);
    } finally {
      body?.release();
      ended();
    }
  }

  /** An endpoint the gateway answers itself, through the plugin that provides it (e.g. GET /v1/usage). */
  private async respondLocally(call: Call): Promise<void> {
    const responder = this.options.chain.responder(call.endpoint.name);
    if (!responder) throw new GatewayError(404, `${call.endpoint.path} is not enabled on this gateway.`);
    const body = JSON.stringify(await responder(call));
    succeeded(call);
    await complete(call, this.options.chain);
    sendJson(call.res, 200, body);
  }
}

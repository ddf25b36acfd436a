import type { Request, Response } from 'express';
import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import { Call, type Endpoint } from '../chain/call.js';
import type { Chain } from '../chain/chain.js';
import type { Translator } from '../chain/translator.js';
import type { Clock } from '../clock.js';
import { GatewayError, isGatewayError, toGatewayError } from '../http/errors.js';
import { sendError, sendJson, SSE_DONE, SSE_HEADERS, sseErrorFrame } from '../http/respond.js';
import { UpstreamFailure, type ProxyCore } from '../proxy/proxy-core.js';
import { readUpstreamBody } from '../proxy/upstream-body.js';
import { relayStream } from './relay-stream.js';
import { upstreamFailureError } from './upstream-errors.js';

/** Largest upstream body read whole: non-streamed replies (embeddings can be large) and error bodies. */
const MAX_UPSTREAM_BODY_BYTES = 256 * 1024 * 1024;
const MAX_UPSTREAM_ERROR_BYTES = 1024 * 1024;

export interface PipelineOptions {
  chain: Chain;
  proxy: ProxyCore;
  clock: Clock;
  log: Logger;
  upstreamTimeoutMs: number;
  streamIdleMs: number;
}

const now = (): number => performance.now();

/**
 * The life of a call: the chain's gatekeeping, the upstream exchange through the vendor's
 * translator, the relay of the reply, and completion exactly once, before the last byte.
 */
export class Pipeline {
  private readonly completed = new WeakSet<Call>();

  constructor(private readonly options: PipelineOptions) {}

  /** An Express handler for one endpoint; the body (if any) was read by the edge as raw bytes. */
  handler(endpoint: Endpoint): (req: Request, res: Response) => Promise<void> {
    return async (req, res) => {
      const raw = Buffer.isBuffer(req.body) ? (req.body as Buffer) : undefined;
      const call = new Call(endpoint, req, res, this.options.clock.now(), raw);
      res.locals['call'] = call;
      res.once('close', () => {
        if (!res.writableFinished) call.callerGone = true;
      });
      try {
        await this.options.chain.onRequest(call);
        if (endpoint.upstream) await this.exchange(call);
        else await this.respondLocally(call);
      } catch (error) {
        await this.fail(call, error);
      }
    };
  }

  /** An endpoint the gateway answers itself, through the plugin that provides it. */
  private async respondLocally(call: Call): Promise<void> {
    const responder = this.options.chain.responder(call.endpoint.name);
    if (!responder) throw new GatewayError(404, `${call.endpoint.path} is not enabled on this gateway.`);
    const body = JSON.stringify(await responder(call));
    call.outcome = 'ok';
    call.status = 200;
    await this.complete(call);
    sendJson(call.res, 200, body);
  }

  private async exchange(call: Call): Promise<void> {
    const { chain, proxy } = this.options;
    const model = call.model;
    if (!model) throw new GatewayError(500, `No plugin resolved the model of ${call.endpoint.path}.`);
    const provider = chain.translator(model.family);
    if (!provider) {
      throw new GatewayError(503, `No upstream is configured for the ${model.family} family (model ${model.id}); enable its vendor plugin.`);
    }
    const translator = provider.create(call);
    const pending = translator.request();
    const request = pending instanceof Promise ? await pending : pending;
    chain.onUpstreamRequest(call, request);
    call.attempts += 1;
    call.timings.upstreamStart = now();
    let upstream;
    try {
      upstream = await proxy.send(call, model.family, request);
    } catch (error) {
      throw this.attemptError(call, error);
    }
    call.timings.upstreamHeaders = now();
    const status = upstream.statusCode ?? 502;
    call.upstreamStatus = status;
    chain.onUpstreamResponse(call, { status, headers: upstream.headers, attempt: call.attempts });
    if (status < 200 || status >= 300) {
      call.outcome = 'upstream_error';
      const body = await readUpstreamBody(upstream, MAX_UPSTREAM_ERROR_BYTES).catch(() => Buffer.alloc(0));
      throw translator.error(status, upstream.headers, body);
    }
    if (call.stream) await this.relayStream(call, translator, upstream);
    else await this.relayBody(call, translator, upstream);
  }

  private async relayBody(call: Call, translator: Translator, upstream: IncomingMessage): Promise<void> {
    let raw: Buffer;
    try {
      raw = await readUpstreamBody(upstream, MAX_UPSTREAM_BODY_BYTES);
    } catch (error) {
      throw this.attemptError(call, error);
    }
    const out = translator.response(raw);
    call.usage = out.usage;
    call.outcome = 'ok';
    call.status = 200;
    await this.complete(call);
    if (call.callerGone) return;
    call.timings.firstByte = now();
    const { chain } = this.options;
    if (chain.wantsChunks) chain.onResponseChunk(call, out.body);
    sendJson(call.res, 200, out.body);
  }

  private async relayStream(call: Call, translator: Translator, upstream: IncomingMessage): Promise<void> {
    const { chain } = this.options;
    const { res } = call;
    const stream = translator.stream();
    res.writeHead(200, SSE_HEADERS);
    res.flushHeaders();
    call.status = 200;
    try {
      await relayStream(call, upstream, stream, {
        idleMs: this.options.streamIdleMs,
        onFrame: chain.wantsChunks ? (frame) => chain.onResponseChunk(call, frame) : null,
      });
    } catch (error) {
      // Bill what was produced: the vendor's count where it gave one, else the relayed deltas.
      this.settlePartialUsage(call, stream.usage, stream.relayedDeltas);
      throw this.attemptError(call, error);
    }
    this.settlePartialUsage(call, stream.usage, stream.relayedDeltas);
    call.outcome = 'ok';
    await this.complete(call);
    if (chain.wantsChunks) chain.onResponseChunk(call, SSE_DONE);
    res.end(SSE_DONE);
  }

  private settlePartialUsage(call: Call, usage: Call['usage'], relayedDeltas: number): void {
    if (usage) {
      call.usage = usage;
    } else {
      call.usage = { promptTokens: 0, completionTokens: relayedDeltas };
      call.usageEstimated = true;
    }
  }

  /** An attempt that produced no usable answer → the caller's error, and the call's outcome. */
  private attemptError(call: Call, error: unknown): unknown {
    if (!(error instanceof UpstreamFailure)) return error;
    if (error.kind === 'caller_gone' || call.callerGone) {
      call.outcome = 'client_disconnected';
      return error;
    }
    const timedOut = error.kind === 'headers_timeout' || error.kind === 'connect_timeout' || error.kind === 'stream_idle';
    call.outcome = timedOut ? 'timeout' : 'upstream_error';
    const family = call.model?.family ?? 'gamma';
    const limit = error.kind === 'stream_idle' ? this.options.streamIdleMs : this.options.upstreamTimeoutMs;
    return upstreamFailureError(error, family, limit);
  }

  /** Completion hooks exactly once per call. */
  private async complete(call: Call): Promise<void> {
    if (this.completed.has(call)) return;
    this.completed.add(call);
    call.timings.completed = now();
    await this.options.chain.onComplete(call);
  }

  /** Ends a call that did not succeed: the envelope before headers, an SSE error frame after. */
  private async fail(call: Call, thrown: unknown): Promise<void> {
    const { res } = call;
    if (call.callerGone) {
      call.outcome = 'client_disconnected';
      call.status = 499;
    } else {
      const error = toGatewayError(thrown);
      if (!isGatewayError(thrown)) this.options.log.error({ err: thrown }, 'unexpected failure in a call');
      call.error = error;
      call.status = res.headersSent ? call.status : error.status;
      if (call.outcome === 'pending' || call.outcome === 'ok') {
        call.outcome = call.attempts === 0 ? 'rejected' : error.status >= 500 ? 'error' : 'upstream_error';
      }
    }
    try {
      await this.complete(call);
    } catch (error) {
      this.options.log.error({ err: error }, 'completion hooks failed for a failed call');
    }
    if (call.callerGone || res.destroyed) return;
    if (!call.error) return;
    if (res.headersSent) {
      res.end(sseErrorFrame(call.error));
    } else {
      sendError(res, call.error);
    }
  }
}

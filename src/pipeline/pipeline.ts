import type { Request, Response } from 'express';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { ModelEntry } from '../catalogue/catalogue.js';
import { Call, type Endpoint, type UpstreamAttempt } from '../chain/call.js';
import type { Chain } from '../chain/chain.js';
import type { AttemptFailure } from '../chain/retry.js';
import type { Translator, UpstreamRequest } from '../chain/translator.js';
import type { Clock } from '../clock.js';
import { GatewayError, isGatewayError, toGatewayError } from '../http/errors.js';
import { sendError, sendJson, SSE_DONE, SSE_HEADERS, sseErrorFrame } from '../http/respond.js';
import { retryAfterMs } from '../http/retry-after.js';
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

/** Attempt codes that are the gateway's own timeouts (outcome `timeout`, 504). */
const TIMEOUT_CODES: ReadonlySet<string> = new Set(['connect_timeout', 'headers_timeout', 'stream_idle']);

/** The translator and request of the call's current model (a fallback prepares anew). */
interface Prepared {
  translator: Translator;
  request: UpstreamRequest;
}

/** What one attempt produced: a stream to relay, a whole body, or a failure for the retry policy. */
type AttemptResult =
  | { kind: 'stream'; upstream: IncomingMessage }
  | { kind: 'body'; raw: Buffer }
  | { kind: 'failed'; failure: AttemptFailure };

/**
 * The life of a call: the chain's gatekeeping, the upstream exchange through the vendor's
 * translator, the relay of the reply, and completion exactly once, before the last byte.
 */
export class Pipeline {
  private readonly completed = new WeakSet<Call>();

  constructor(private readonly options: PipelineOptions) {}

  /** An Express handler for one endpoint; the body (if any) was read by the edge as raw bytes. */
  handler(endpoint: Endpoint): (req: Request, res: Response) => Promise<void> {
    return (req, res) => this.serve(endpoint, req, res, Buffer.isBuffer(req.body) ? (req.body as Buffer) : undefined);
  }

  /** Serves one call of an endpoint; `raw` is the request body as read by the edge. */
  async serve(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse, raw: Buffer | undefined): Promise<void> {
    const call = new Call(endpoint, req, res, this.options.clock.now(), raw);
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

  /**
   * The attempt loop: attempts until one gives a usable answer or the retry policy gives up.
   * Retries happen only here, before any byte reached the caller, and never past the request's
   * deadline (received + upstream timeout): each attempt gets only what is left of it.
   */
  private async exchange(call: Call): Promise<void> {
    const { chain, log } = this.options;
    const deadline = call.timings.received + this.options.upstreamTimeoutMs;
    let prepared = await this.prepare(call);
    let waitMs = 0;
    for (;;) {
      const result = await this.attempt(call, prepared, deadline, waitMs);
      if (result.kind === 'stream') return this.relayStream(call, prepared.translator, result.upstream);
      if (result.kind === 'body') return this.relayBody(call, prepared.translator, result.raw);
      const { failure } = result;
      const decision = chain.retryPolicy?.next(call, failure, deadline - now()) ?? null;
      const attempt = call.upstreamAttempts.at(-1) as UpstreamAttempt;
      if (!decision) {
        call.outcome = TIMEOUT_CODES.has(failure.code) ? 'timeout' : 'upstream_error';
        throw failure.error;
      }
      attempt.then = decision.kind;
      log.warn(
        {
          model: attempt.model,
          attempt: call.attempts,
          code: failure.code,
          then: decision.kind,
          delay_ms: Math.round(decision.delayMs),
          ...(decision.kind === 'fallback' ? { fallback_model: decision.model.id } : {}),
        },
        'upstream attempt failed, trying again',
      );
      if (decision.kind === 'fallback') {
        // The sibling answers and is billed: the call's model is now the sibling.
        call.model = decision.model;
        prepared = await this.prepare(call);
      }
      waitMs = await this.pause(call, decision.delayMs);
      if (call.callerGone) throw this.attemptError(call, new UpstreamFailure('caller_gone', 'the caller closed the connection'));
    }
  }

  /** The translator and upstream request for the call's current model. */
  private async prepare(call: Call): Promise<Prepared> {
    const model = call.model;
    if (!model) throw new GatewayError(500, `No plugin resolved the model of ${call.endpoint.path}.`);
    const provider = this.options.chain.translator(model.family);
    if (!provider) {
      throw new GatewayError(503, `No upstream is configured for the ${model.family} family (model ${model.id}); enable its vendor plugin.`);
    }
    const translator = provider.create(call);
    const pending = translator.request();
    return { translator, request: pending instanceof Promise ? await pending : pending };
  }

  /**
   * One upstream attempt, recorded on the call. A non-streamed answer is read whole here, so
   * that a body cut short can still be retried: nothing has reached the caller yet.
   */
  private async attempt(call: Call, prepared: Prepared, deadline: number, waitMs: number): Promise<AttemptResult> {
    const { chain, proxy } = this.options;
    const model = call.model as ModelEntry;
    chain.onUpstreamRequest(call, prepared.request);
    call.attempts += 1;
    const startedAt = now();
    call.timings.upstreamStart = startedAt;
    const record: UpstreamAttempt = { model: model.id, family: model.family, status: 0, code: null, startedAt, endedAt: startedAt, waitMs, then: null };
    call.upstreamAttempts.push(record);
    let upstream: IncomingMessage;
    try {
      upstream = await proxy.send(call, model.family, prepared.request, Math.max(1, Math.ceil(deadline - startedAt)));
    } catch (error) {
      record.endedAt = now();
      return this.failedAttempt(call, record, error);
    }
    record.endedAt = call.timings.upstreamHeaders = now();
    const status = upstream.statusCode ?? 502;
    record.status = call.upstreamStatus = status;
    chain.onUpstreamResponse(call, { status, headers: upstream.headers, attempt: call.attempts });
    if (status < 200 || status >= 300) {
      record.code = String(status);
      const body = await readUpstreamBody(upstream, MAX_UPSTREAM_ERROR_BYTES, this.options.streamIdleMs).catch(() => Buffer.alloc(0));
      const error = prepared.translator.error(status, upstream.headers, body);
      return { kind: 'failed', failure: { status, code: record.code, error, retryAfterMs: retryAfterMs(upstream.headers, this.options.clock.now()) } };
    }
    if (call.stream) return { kind: 'stream', upstream };
    try {
      const raw = await readUpstreamBody(upstream, MAX_UPSTREAM_BODY_BYTES, this.options.streamIdleMs);
      call.timings.upstreamEnd = now();
      return { kind: 'body', raw };
    } catch (error) {
      record.endedAt = now();
      return this.failedAttempt(call, record, error);
    }
  }

  /** An attempt that got no usable answer: a failure the policy may retry; a caller that left ends the call. */
  private failedAttempt(call: Call, record: UpstreamAttempt, error: unknown): AttemptResult {
    if (!(error instanceof UpstreamFailure)) throw error;
    if (error.kind === 'caller_gone' || call.callerGone) throw this.attemptError(call, error);
    record.code = error.kind;
    const limit = error.kind === 'stream_idle' ? this.options.streamIdleMs : this.options.upstreamTimeoutMs;
    return { kind: 'failed', failure: { status: 0, code: error.kind, error: upstreamFailureError(error, record.family, limit), retryAfterMs: null } };
  }

  /** Waits before the next attempt; a caller that leaves ends the wait. Resolves with the time waited. */
  private pause(call: Call, ms: number): Promise<number> {
    if (ms <= 0) return Promise.resolve(0);
    const started = now();
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        call.res.off('close', done);
        resolve(now() - started);
      };
      const timer = setTimeout(done, ms);
      call.res.once('close', done);
    });
  }

  private async relayBody(call: Call, translator: Translator, raw: Buffer): Promise<void> {
    let out;
    try {
      out = translator.response(raw);
    } catch (error) {
      this.markAttempt(call, 'invalid_body');
      throw error;
    }
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
    // The headers leave with the first frames (one write); relayStream sends them alone if the
    // upstream is slow to produce any.
    res.writeHead(200, SSE_HEADERS);
    call.status = 200;
    try {
      await relayStream(call, upstream, stream, {
        idleMs: this.options.streamIdleMs,
        onFrame: chain.wantsChunks ? (frame) => chain.onResponseChunk(call, frame) : null,
      });
    } catch (error) {
      call.timings.upstreamEnd = now();
      if (!call.callerGone) this.markAttempt(call, error instanceof UpstreamFailure ? error.kind : 'stream_error');
      // Bill what was produced: the vendor's count where it gave one, else the relayed deltas.
      this.settlePartialUsage(call, stream.usage, stream.relayedDeltas);
      throw this.attemptError(call, error);
    }
    call.timings.upstreamEnd = now();
    this.settlePartialUsage(call, stream.usage, stream.relayedDeltas);
    call.outcome = 'ok';
    await this.complete(call);
    if (chain.wantsChunks) chain.onResponseChunk(call, SSE_DONE);
    res.end(SSE_DONE);
  }

  /** Records how the answering attempt failed after its headers (a broken stream, a body that is not the vendor's format). */
  private markAttempt(call: Call, code: string): void {
    const attempt = call.upstreamAttempts.at(-1);
    if (attempt) attempt.code = code;
  }

  private settlePartialUsage(call: Call, usage: Call['usage'], relayedDeltas: number): void {
    if (usage) {
      call.usage = usage;
    } else {
      call.usage = { promptTokens: 0, completionTokens: relayedDeltas };
      call.usageEstimated = true;
    }
  }

  /** A failure after the attempt loop (a broken stream, a caller that left) → the caller's error, and the call's outcome. */
  private attemptError(call: Call, error: unknown): unknown {
    if (!(error instanceof UpstreamFailure)) return error;
    if (error.kind === 'caller_gone' || call.callerGone) {
      call.outcome = 'client_disconnected';
      return error;
    }
    call.outcome = TIMEOUT_CODES.has(error.kind) ? 'timeout' : 'upstream_error';
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

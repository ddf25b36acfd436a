import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Call, UpstreamAttempt } from '../chain/call.js';
import type { KeptAnswer } from '../chain/kept-answer.js';
import type { AdmittedCall, ResolvedCall } from '../chain/phases.js';
import type { Chain } from '../chain/chain.js';
import type { AttemptFailure } from '../chain/retry.js';
import type { TranslatedBody, Translator, UpstreamRequest } from '../chain/translator.js';
import type { Clock } from '../clock.js';
import { GatewayError } from '../http/errors.js';
import { retryAfterMs } from '../http/retry-after.js';
import { UpstreamFailure, type ProxyCore } from '../proxy/proxy-core.js';
import { readUpstreamBody } from '../proxy/upstream-body.js';
import { upstreamFailureError, type FailureLimits } from './upstream-errors.js';

/** Largest upstream body read whole: non-streamed replies (embeddings can be large) and error bodies. */
const MAX_UPSTREAM_BODY_BYTES = 256 * 1024 * 1024;
const MAX_UPSTREAM_ERROR_BYTES = 1024 * 1024;

/** What sends one upstream attempt (the proxy core; a stub in unit tests). */
export type UpstreamSender = Pick<ProxyCore, 'send'>;

export interface ExchangeDeps {
  chain: Chain;
  proxy: UpstreamSender;
  clock: Clock;
  log: Logger;
  limits: FailureLimits;
}

/**
 * A usable answer: a stream to relay (body unread) or a whole body, with the translator that
 * reads it, the translator's own answer given without any upstream, or an answer kept from an
 * earlier call that a request hook gave the call (src/chain/kept-answer.ts).
 */
export type Answer =
  | { kind: 'stream'; translator: Translator; upstream: IncomingMessage }
  | { kind: 'body'; translator: Translator; raw: Buffer }
  | { kind: 'local'; body: TranslatedBody }
  | { kind: 'kept'; answer: KeptAnswer };

type AttemptResult = Answer | { kind: 'failed'; failure: AttemptFailure };

const now = (): number => performance.now();

/**
 * The upstream exchange: attempts until one gives a usable answer or the retry policy gives
 * up (then the last failure is thrown as our error); none when the translator answers itself
 * or a request hook gave the call a kept answer.
 * Retries happen only here, before any byte reached the caller, and never past the request's
 * deadline (received + upstream timeout): each attempt gets only what is left of it.
 */
export async function exchange(call: AdmittedCall, deps: ExchangeDeps): Promise<Answer> {
  if (call.givenAnswer !== null) return { kind: 'kept', answer: call.givenAnswer };
  const deadline = call.timings.received + deps.limits.upstreamMs;
  let translator = prepare(call, deps.chain);
  let request = await translator.request();
  let waitMs = 0;
  for (;;) {
    if ('local' in request) return { kind: 'local', body: request.local };
    const result = await attempt(call, translator, request, deadline, waitMs, deps);
    if (result.kind !== 'failed') return result;
    const { failure } = result;
    const decision = deps.chain.retryPolicy?.next(call, failure, deadline - now()) ?? null;
    if (!decision) throw failure.error;
    const record = call.upstreamAttempts.at(-1) as UpstreamAttempt;
    record.then = decision.kind;
    deps.log.warn(
      {
        model: record.model,
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
      call.resolveModel(decision.model);
      translator = prepare(call, deps.chain);
      request = await translator.request();
    }
    waitMs = await pause(call, decision.delayMs);
  }
}

/** The translator for the call's current model. */
function prepare(call: ResolvedCall, chain: Chain): Translator {
  const model = call.model;
  const provider = chain.translator(model.family);
  if (!provider) {
    throw new GatewayError(503, `No upstream is configured for the ${model.family} family (model ${model.id}); enable its vendor plugin.`);
  }
  return provider.create(call);
}

/**
 * One upstream attempt, recorded on the call. A non-streamed answer is read whole here, so
 * that a body cut short can still be retried: nothing has reached the caller yet.
 */
async function attempt(
  call: AdmittedCall,
  translator: Translator,
  request: UpstreamRequest,
  deadline: number,
  waitMs: number,
  deps: ExchangeDeps,
): Promise<AttemptResult> {
  const { chain, proxy, limits } = deps;
  const model = call.model;
  chain.onUpstreamRequest(call, request);
  call.attempts += 1;
  const startedAt = now();
  call.timings.upstreamStart = startedAt;
  const record: UpstreamAttempt = {
    model: model.id,
    family: model.family,
    status: 0,
    code: null,
    startedAt,
    endedAt: startedAt,
    waitMs,
    then: null,
    deployment: call.deployment ?? 'default',
  };
  call.upstreamAttempts.push(record);
  let upstream: IncomingMessage;
  try {
    upstream = await proxy.send(call, model.family, request, Math.max(1, Math.ceil(deadline - startedAt)));
  } catch (error) {
    record.endedAt = now();
    return failedAttempt(call, record, error, limits);
  }
  record.endedAt = call.timings.upstreamHeaders = now();
  const status = upstream.statusCode ?? 502;
  record.status = call.upstreamStatus = status;
  chain.onUpstreamResponse(call, { status, headers: upstream.headers, attempt: call.attempts });
  if (status < 200 || status >= 300) {
    record.code = String(status);
    const body = await readUpstreamBody(upstream, MAX_UPSTREAM_ERROR_BYTES, limits.streamIdleMs).catch(() => Buffer.alloc(0));
    const error = translator.error(status, upstream.headers, body);
    return { kind: 'failed', failure: { status, code: record.code, error, retryAfterMs: retryAfterMs(upstream.headers, deps.clock.now()) } };
  }
  if (call.stream) {
    const type = notAnEventStream(upstream);
    if (type === null) return { kind: 'stream', translator, upstream };
    // A JSON reply or an error page: nothing has reached the caller yet, so the caller hears a
    // 502 in its format's envelope rather than a 200 stream that breaks off at once. Its body is
    // not read (it could be endless): the connection goes with it.
    upstream.destroy();
    record.code = 'not_a_stream';
    const error = new GatewayError(502, `The ${model.family} upstream answered a stream request with ${type}, not an event stream.`);
    return { kind: 'failed', failure: { status, code: record.code, error, retryAfterMs: null } };
  }
  try {
    const raw = await readUpstreamBody(upstream, MAX_UPSTREAM_BODY_BYTES, limits.streamIdleMs);
    call.timings.upstreamEnd = now();
    return { kind: 'body', translator, raw };
  } catch (error) {
    record.endedAt = now();
    return failedAttempt(call, record, error, limits);
  }
}

/** The media type of a 2xx answer to a stream request that is not an event stream, or null (none named counts as one). */
function notAnEventStream(upstream: IncomingMessage): string | null {
  const type = upstream.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  return type === undefined || type === '' || type === 'text/event-stream' ? null : type;
}

/** An attempt that got no usable answer: a failure the policy may retry. A caller who left ends the call. */
function failedAttempt(call: Call, record: UpstreamAttempt, error: unknown, limits: FailureLimits): AttemptResult {
  if (!(error instanceof UpstreamFailure)) throw error;
  if (call.callerGone) throw error;
  record.code = error.kind;
  return { kind: 'failed', failure: { status: 0, code: error.kind, error: upstreamFailureError(error, record.family, limits), retryAfterMs: null } };
}

/** Waits before the next attempt; a caller who leaves ends the wait and the call. Resolves with the time waited. */
function pause(call: Call, ms: number): Promise<number> {
  if (call.callerGone) return Promise.reject(new UpstreamFailure('caller_gone', 'the caller closed the connection'));
  if (ms <= 0) return Promise.resolve(0);
  const started = now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stopListening();
      resolve(now() - started);
    }, ms);
    const stopListening = call.onCallerGone(() => {
      clearTimeout(timer);
      reject(new UpstreamFailure('caller_gone', 'the caller closed the connection'));
    });
  });
}

import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Call, UpstreamAttempt } from '../chain/call.js';
import type { KeptAnswer } from '../chain/kept-answer.js';
import { answeringOn, type AdmittedCall, type ResolvedCall } from '../chain/phases.js';
import type { Chain } from '../chain/chain.js';
import type { AttemptFailure } from '../chain/retry.js';
import type { TranslatedBody, Translator, TranslatorProvider, UpstreamRequest } from '../chain/translator.js';
import type { Clock } from '../clock.js';
import { GatewayError } from '../http/errors.js';
import { retryAfterMs } from '../http/retry-after.js';
import { UpstreamFailure, type ProxyCore } from '../proxy/proxy-core.js';
import { readUpstreamBody } from '../proxy/upstream-body.js';
import type { Deployment } from '../upstreams/deployments.js';
import { isExhausted, type DeploymentSelector, type Selection } from '../upstreams/selection.js';
import { upstreamFailureError, type FailureLimits } from './upstream-errors.js';

/** Largest upstream body read whole: non-streamed replies (embeddings can be large) and error bodies. */
const MAX_UPSTREAM_BODY_BYTES = 256 * 1024 * 1024;
const MAX_UPSTREAM_ERROR_BYTES = 1024 * 1024;

/** What sends one upstream attempt (the proxy core; a stub in unit tests). */
export type UpstreamSender = Pick<ProxyCore, 'send'>;

/** What chooses each attempt's deployment and hears of its failures (src/upstreams/selection.ts). */
export type DeploymentChooser = Pick<DeploymentSelector, 'choose' | 'failed'>;

export interface ExchangeDeps {
  chain: Chain;
  proxy: UpstreamSender;
  clock: Clock;
  log: Logger;
  limits: FailureLimits;
  deployments: DeploymentChooser;
  /** `retry.max`: retries of a call's model, on another deployment at once or by the retry policy. */
  retryMax: number;
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
 * Each attempt's deployment is chosen before the translator writes its request. A failed
 * attempt is first tried again at once on another deployment of the same model
 * (docs/deployments.md#health-and-retries), then as the retry policy decides (backoff, a sibling model).
 * Retries happen only here, before any byte reached the caller, and never past the request's
 * deadline (received + upstream timeout): each attempt gets only what is left of it.
 */
export async function exchange(call: AdmittedCall, deps: ExchangeDeps): Promise<Answer> {
  if (call.givenAnswer !== null) return { kind: 'kept', answer: call.givenAnswer };
  const deadline = call.timings.received + deps.limits.upstreamMs;
  const provider = providerOf(call, deps.chain);
  const picked = choose(call, deps, null);
  // Awaited only when the choice is (a family of one plain deployment is chosen synchronously).
  let target = firstDeployment(call, picked instanceof Promise ? await picked : picked);
  let translator = provider.create(call);
  let request = await translator.request();
  let waitMs = 0;
  for (;;) {
    if ('local' in request) return { kind: 'local', body: request.local };
    const result = await attempt(call, translator, request, target, deadline, waitMs, deps);
    if (result.kind !== 'failed') return result;
    const { failure } = result;
    const record = call.upstreamAttempts.at(-1) as UpstreamAttempt;
    const deploymentFailed = failure.status === 0 || failure.status === 429 || failure.status >= 500;
    if (deploymentFailed) deps.deployments.failed(target, deps.clock.now(), failure.retryAfterMs);
    const other = deploymentFailed && retriesOf(call) < deps.retryMax && deadline - now() > 0 ? await untried(call, deps) : null;
    if (other) {
      record.then = 'retry';
      deps.log.warn(
        { model: record.model, attempt: call.attempts, code: failure.code, then: 'deployment', deployment: record.deployment, next_deployment: other.name },
        'upstream attempt failed, trying another deployment',
      );
      target = other;
      waitMs = 0;
    } else {
      const decision = deps.chain.retryPolicy?.next(call, failure, deadline - now()) ?? null;
      if (!decision) throw failure.error;
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
      // The sibling answers and is billed: the call's model is now the sibling.
      if (decision.kind === 'fallback') call.resolveModel(decision.model);
      waitMs = await pause(call, decision.delayMs);
      const next = (await untried(call, deps)) ?? (await choose(call, deps, null));
      if (next === null || isExhausted(next)) throw failure.error;
      if (next === target && decision.kind !== 'fallback') continue;
      target = next;
    }
    // A new deployment or model: the request is written again (state pinned to another deployment is left out).
    call.deployment = target.name;
    translator = prepare(call, deps.chain);
    request = await translator.request();
  }
}

/** Retries of the call's model so far (on another deployment or after a backoff): what `retry.max` bounds. */
const retriesOf = (call: Call): number => call.upstreamAttempts.reduce((n, a) => (a.then === 'retry' ? n + 1 : n), 0);

function choose(call: AdmittedCall, deps: ExchangeDeps, avoid: ReadonlySet<string> | null): ReturnType<DeploymentChooser['choose']> {
  return deps.deployments.choose(call, call.model.family, call.model.id, deps.clock.now(), avoid);
}

/** The first attempt's deployment, set on the call; every deployment cooled down or out of headroom is a 429. */
function firstDeployment(call: AdmittedCall, selection: Selection | null): Deployment {
  if (selection === null) {
    throw new GatewayError(503, `No upstream deployment of the ${call.model.family} family serves ${call.model.id}.`);
  }
  if (isExhausted(selection)) {
    const seconds = Math.max(1, Math.ceil(selection.retryAfterMs / 1000));
    throw new GatewayError(
      429,
      `Every ${call.model.family} deployment serving ${call.model.id} is cooling down or at its vendor rate limit; retry in ${seconds} s.`,
      {
        headers: { 'retry-after': String(seconds) },
      },
    );
  }
  call.deployment = selection.name;
  return selection;
}

/** A healthy deployment of the call's model that has not failed it yet, or null. */
async function untried(call: AdmittedCall, deps: ExchangeDeps): Promise<Deployment | null> {
  const tried = new Set(call.upstreamAttempts.flatMap((a) => (a.model === call.model.id ? [a.deployment] : [])));
  const selection = await choose(call, deps, tried);
  return selection === null || isExhausted(selection) ? null : selection;
}

/** The vendor plugin's translators for the call's model's family; none is a 503 naming the family. */
function providerOf(call: ResolvedCall, chain: Chain): TranslatorProvider {
  const model = call.model;
  const provider = chain.translator(model.family);
  if (!provider) {
    throw new GatewayError(503, `No upstream is configured for the ${model.family} family (model ${model.id}); enable its vendor plugin.`);
  }
  return provider;
}

/** The translator for the call's current model and deployment. */
function prepare(call: ResolvedCall, chain: Chain): Translator {
  return providerOf(call, chain).create(call);
}

/**
 * One upstream attempt, recorded on the call. A non-streamed answer is read whole here, so
 * that a body cut short can still be retried: nothing has reached the caller yet.
 */
async function attempt(
  call: AdmittedCall,
  translator: Translator,
  request: UpstreamRequest,
  deployment: Deployment,
  deadline: number,
  waitMs: number,
  deps: ExchangeDeps,
): Promise<AttemptResult> {
  const { chain, proxy, limits } = deps;
  const model = call.model;
  const answering = answeringOn(call, deployment.name);
  chain.onUpstreamRequest(answering, request);
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
    deployment: deployment.name,
  };
  call.upstreamAttempts.push(record);
  let upstream: IncomingMessage;
  try {
    upstream = await proxy.send(call, deployment, request, Math.max(1, Math.ceil(deadline - startedAt)));
  } catch (error) {
    record.endedAt = now();
    return failedAttempt(call, record, error, limits);
  }
  record.endedAt = call.timings.upstreamHeaders = now();
  const status = upstream.statusCode ?? 502;
  record.status = call.upstreamStatus = status;
  chain.onUpstreamResponse(answering, { status, headers: upstream.headers, attempt: call.attempts });
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

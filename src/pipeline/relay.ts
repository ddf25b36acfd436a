import type { IncomingMessage } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Call } from '../chain/call.js';
import type { Chain } from '../chain/chain.js';
import type { KeptAnswer } from '../chain/kept-answer.js';
import type { StreamTranslator, TranslatedBody, Translator } from '../chain/translator.js';
import { sendJson, SSE_HEADERS } from '../http/respond.js';
import { estimatedPrompt } from '../neutral/token-estimate.js';
import { UpstreamFailure } from '../proxy/proxy-core.js';
import { complete } from './completion.js';
import { succeeded } from './outcome.js';
import { relayStream } from './relay-stream.js';
import { upstreamFailureError, type FailureLimits } from './upstream-errors.js';

/**
 * The relay of an answer to the caller: the translated body, or the stream event by event.
 * Completion runs before the last byte (for a stream, before its last frame: chat's
 * `data: [DONE]`, Responses' `response.completed`, Messages' `message_stop`).
 */

export interface RelayDeps {
  chain: Chain;
  limits: FailureLimits;
}

const now = (): number => performance.now();

/** Records how the answering attempt failed after its headers (a broken stream, a body that is not the vendor's format). */
function markAttempt(call: Call, code: string): void {
  const attempt = call.upstreamAttempts.at(-1);
  if (attempt) attempt.code = code;
}

export async function relayBody(call: Call, translator: Translator, raw: Buffer, deps: RelayDeps): Promise<void> {
  let out;
  try {
    out = translator.response(raw);
  } catch (error) {
    markAttempt(call, 'invalid_body');
    throw error;
  }
  await sendBody(call, out, deps);
}

/** A whole reply: completion, then the body (also a translator's own answer, given without any upstream). */
export async function sendBody(call: Call, out: TranslatedBody, deps: RelayDeps): Promise<void> {
  call.usage = out.usage;
  succeeded(call);
  call.recorder?.add(out.body);
  await complete(call, deps.chain);
  if (call.callerGone) return;
  call.timings.firstByte = now();
  if (deps.chain.wantsChunks) deps.chain.onResponseChunk(call, out.body);
  sendJson(call.res, 200, out.body);
}

/**
 * A stream cut short is billed for what was produced: the vendor's count where it gave one, else
 * the relayed deltas and the estimated prompt. The vendor bills the prompt it read even when the
 * stream is cut before its count (gamma counts only at the end), so it is never billed as 0.
 */
function settleUsage(call: Call, stream: StreamTranslator): void {
  call.usage = stream.usage ?? { promptTokens: estimatedPrompt(call), completionTokens: stream.relayedDeltas, estimated: true };
}

export async function relayStreamed(call: Call, translator: Translator, upstream: IncomingMessage, deps: RelayDeps): Promise<void> {
  const { chain } = deps;
  const { res } = call;
  const stream = translator.stream();
  // From here a failure is written by the stream (its format's own last frames).
  call.streamFailure = (error) => stream.fail(error);
  // The headers leave with the first frames (one write); relayStream sends them alone if the
  // upstream is slow to produce any.
  res.writeHead(200, SSE_HEADERS);
  call.status = 200;
  try {
    await relayStream(call, upstream, stream, {
      idleMs: deps.limits.streamIdleMs,
      onFrame: frameObserver(call, chain),
    });
  } catch (error) {
    call.timings.upstreamEnd = now();
    settleUsage(call, stream);
    if (call.callerGone) throw error;
    markAttempt(call, error instanceof UpstreamFailure ? error.kind : 'stream_error');
    throw error instanceof UpstreamFailure ? upstreamFailureError(error, call.family, deps.limits) : error;
  }
  call.timings.upstreamEnd = now();
  settleUsage(call, stream);
  succeeded(call);
  // Made before completion (it is written after), so that a kept answer has its last frame.
  const done = stream.done();
  if (done !== '') call.recorder?.add(done);
  await complete(call, chain);
  if (chain.wantsChunks && done !== '') chain.onResponseChunk(call, done);
  res.end(done);
}

/** Who sees each frame of a stream as it is written: the chain's chunk hooks and the call's recorder, or nobody (then the relay calls nothing). */
function frameObserver(call: Call, chain: Chain): ((frame: string) => void) | null {
  const recorder = call.recorder;
  if (!recorder) return chain.wantsChunks ? (frame) => chain.onResponseChunk(call, frame) : null;
  return chain.wantsChunks
    ? (frame) => {
        recorder.add(frame);
        chain.onResponseChunk(call, frame);
      }
    : (frame) => recorder.add(frame);
}

/**
 * An answer kept from an earlier call (the response cache's hit), given again as the caller first
 * got it: a whole body, or the stream's frames — all but the last, the completion hooks, the last.
 */
export async function replayKept(call: Call, kept: KeptAnswer, deps: RelayDeps): Promise<void> {
  const last = kept.pieces.length - 1;
  if (!kept.stream) {
    await sendBody(call, { body: kept.pieces.join(''), usage: kept.usage }, deps);
    return;
  }
  const { res } = call;
  call.usage = kept.usage;
  succeeded(call);
  res.writeHead(200, SSE_HEADERS);
  call.timings.firstByte = now();
  const head = kept.pieces.slice(0, last);
  if (deps.chain.wantsChunks) for (const piece of head) deps.chain.onResponseChunk(call, piece);
  res.write(head.join(''));
  await complete(call, deps.chain);
  const done = kept.pieces[last] as string;
  if (deps.chain.wantsChunks) deps.chain.onResponseChunk(call, done);
  res.end(done);
}

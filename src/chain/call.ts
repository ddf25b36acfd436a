import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { ModelEntry } from '../catalogue/catalogue.js';
import { invalidRequest, type GatewayError } from '../http/errors.js';
import type { ReasoningSeal } from '../neutral/reasoning-state.js';
import type { NeutralRequest } from '../neutral/request.js';
import type { KeyRecord, LedgerRow, Reservation } from '../store/store.js';
import { ADJUSTED_HEADER, adjustedHeader, type Adjustment, type ParameterPolicy } from './adjustments.js';
import { AdmissionSteps } from './admission-steps.js';
import { AnswerNotes } from './answer-notes.js';
import { AnswerRecorder, type KeptAnswer } from './kept-answer.js';
import { parseJsonBody, parseJsonBodyInSteps } from './json-body.js';
import type { CallOutline, IngressFormat } from './ingress.js';

/** An endpoint's name in the ledger, metrics and logs: `chat.completions`, `responses`, `messages`, `usage`, … */
export type EndpointName = string;

/**
 * What an upstream endpoint asks of the model, whatever its format: a reply, embeddings, or a
 * count of the request's input tokens. Vendor translators switch on it, never on endpoint names.
 */
export type Operation = 'generate' | 'embed' | 'count_tokens';

/** A call endpoint an ingress plugin serves (the route table is built from them). */
export interface Endpoint {
  readonly name: EndpointName;
  /**
   * The path; a `{name}` in it matches (part of) one segment, handed to the call as `call.params[name]`
   * (`/v1/responses/{response_id}`; the Gemini format names the model in its path: `/v1beta/models/{model}:generateContent`).
   */
  readonly path: string;
  readonly method: 'GET' | 'POST' | 'DELETE';
  /** Whether the endpoint is forwarded to a model's upstream (and so names a model). */
  readonly upstream: boolean;
  /** What it asks of the model; null for an endpoint the gateway answers itself (`usage`). */
  readonly operation: Operation | null;
  /** The format its requests, replies and errors are in. */
  readonly format: IngressFormat;
  /** A header the key may also come in besides `Authorization: Bearer`, by the format's own convention (`x-api-key`, `x-goog-api-key`). */
  readonly keyHeader?: string;
  /** A query parameter the key may also come in (the Gemini format's `?key=`). */
  readonly keyQuery?: string;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  /** Prompt tokens read from the vendor's prompt cache (a subset of promptTokens), priced at the model's cache-read rate. */
  cachedTokens?: number;
  /** Prompt tokens written to the vendor's prompt cache (a subset of promptTokens; alpha only), priced at the model's cache-write rate. */
  cacheWriteTokens?: number;
  /** Of cacheWriteTokens, those written for an hour (alpha's `ttl: "1h"`), priced at the model's 1-hour write rate. */
  cacheWrite1hTokens?: number;
  /** Completion tokens the model spent reasoning (a subset of completionTokens, priced alike), when the vendor says. */
  reasoningTokens?: number;
  /** A count here is the gateway's stand-in for one the vendor did not give (the ledger row says `usage_estimated`). */
  estimated?: boolean;
}

/**
 * How a call ended. `rejected`: refused before any upstream (401/402/403/…);
 * `upstream_error`: the upstream failed or answered an error; `client_disconnected`: the
 * caller went away; `timeout`: an upstream deadline passed; `error`: the gateway failed.
 */
export type Outcome = 'pending' | 'ok' | 'rejected' | 'upstream_error' | 'client_disconnected' | 'timeout' | 'error';

export type JsonObject = Record<string, unknown>;

const noop = (): void => undefined;
const NO_PARAMS: Readonly<Record<string, string>> = Object.freeze({});

/**
 * The call a response belongs to, for those who see only the response (the request log).
 * A symbol property, not a WeakMap: V8's young-generation collector treats WeakMap entries as
 * strong, so a WeakMap keyed by the response would drag every request's objects into the old
 * generation (measured: ~2 MB promoted per scavenge at 200 requests/s, 5–9 ms scavenges).
 */
const CALL = Symbol('gateway.call');
type WithCall = ServerResponse & { [CALL]?: Call };
export const callOf = (res: ServerResponse): Call | undefined => (res as WithCall)[CALL];

/** Monotonic milliseconds (performance.now()) of the phases of a call; 0 = not reached. */
export interface Timings {
  received: number;
  /** Start of the latest upstream attempt. */
  upstreamStart: number;
  /** Response headers of the latest upstream attempt. */
  upstreamHeaders: number;
  /** The answering upstream's body (or stream) ended, normally or not. */
  upstreamEnd: number;
  firstByte: number;
  completed: number;
}

/**
 * One upstream attempt of a call, in order. A bounded `code` says how it ended: null for an
 * answer that was used, the upstream's status (`'503'`) or a failure kind (`'connect'`,
 * `'connect_timeout'`, `'headers_timeout'`, `'reset'`, `'stream_idle'`).
 */
export interface UpstreamAttempt {
  /** Canonical ID of the model asked (a fallback attempt names the sibling). */
  model: string;
  family: string;
  /** Upstream HTTP status, 0 when none arrived. */
  status: number;
  code: string | null;
  /** Monotonic ms: the attempt started, and its headers arrived or it failed. */
  startedAt: number;
  endedAt: number;
  /** Milliseconds waited before this attempt (retry backoff), 0 for the first. */
  waitMs: number;
  /** What the gateway did next: retried the same model, fell back to a sibling, or nothing. */
  then: 'retry' | 'fallback' | null;
  /** The upstream deployment of the family the attempt went to (`default` for the single form). */
  deployment: string;
}

/**
 * The per-request context every plugin sees. Created once per request with all its fields
 * declared; plugins keep their own extra state in a symbol-keyed property of the call (not a
 * WeakMap: see `callOf`).
 */
export class Call {
  /** Whether the caller asked for a streamed reply (from the outline, once the body is checked). */
  stream = false;
  /** Whether the caller asked for the usage chunk (`stream_options.include_usage`). */
  includeUsage = false;
  /** Final token counts, vendor-reported where possible (`estimated` where the gateway stood in). */
  usage: Usage | null = null;
  outcome: Outcome = 'pending';
  /** HTTP status sent (or that would have been sent) to the caller. */
  status = 0;
  error: GatewayError | null = null;
  /** Upstream attempts made (0: the call never reached an upstream). */
  attempts = 0;
  /** The call's W3C trace id (32 hex digits) when telemetry is on, set by the `telemetry` plugin before any other hook; null otherwise. The request log records it. */
  traceId: string | null = null;
  /** Status of the last upstream response, 0 if none. */
  upstreamStatus = 0;
  /**
   * The call's ledger row, once the ledger's completion hook built it (null for a call with no
   * row: refused before any upstream): completion hooks that run after it (listed above the
   * ledger) read the row's tokens and costs rather than pricing the call again (the request log).
   */
  ledgerRow: LedgerRow | null = null;
  /** Spend held for this call by the ceiling plugin; the ledger settles it in the transaction of the call's row. */
  reservation: Reservation | null = null;
  /**
   * The sibling that would answer if the model's upstream is over capacity, set before admission
   * by the retry plugin (a configured sibling the key may use): the ceiling reserves for the
   * dearer of the two models.
   */
  fallbackModel: ModelEntry | null = null;
  /**
   * A completion hook found the store unavailable (it waited out the database timeout): the hooks
   * after it do no store work they would wait on again (the ceiling's release: its lease expires).
   */
  storeUnavailable = false;
  /** The store steps of admission (rate cap, ceiling) the request hooks queue; run after the last of them. */
  readonly admission = new AdmissionSteps();
  /**
   * Bytes of input the upstream will read beyond the caller's body (a stored conversation that
   * `previous_response_id` replays): with the body's size, the bound of the call's prompt tokens.
   */
  replayedInputBytes = 0;
  /** The values of the endpoint path's `{name}` parameters, as sent and percent-decoded (`/v1/responses/{response_id}`); empty for a literal path. */
  params: Readonly<Record<string, string>> = NO_PARAMS;
  /** Every upstream attempt, in order (retries and fallbacks included). */
  readonly upstreamAttempts: UpstreamAttempt[] = [];
  /**
   * The deployment of the family the current attempt goes to, chosen by the exchange before the
   * translator writes the attempt's request (a translator drops reasoning state pinned to another
   * deployment). Null before the first attempt.
   */
  deployment: string | null = null;
  /**
   * What keeps a conversation on one deployment (docs/deployments.md#affinity-and-sealed-reasoning-state): `affinityKey`, a
   * conversation's identity (session header, `prompt_cache_key`, …), hashed over the healthy
   * deployments; `pinnedDeployment`, a deployment the request must go to to keep its state (the
   * one that issued its sealed reasoning state, or answered its `previous_response_id`),
   * preferred while healthy. Set by the ingress plugins and the neutral request's reader.
   */
  affinityKey: string | null = null;
  pinnedDeployment: string | null = null;
  /**
   * An answer kept from an earlier call that this call is answered with instead of an upstream
   * (the response cache's hit: `answerWith`); null for every other call.
   */
  givenAnswer: KeptAnswer | null = null;
  /** The pieces of this call's answer as written to the caller, when a plugin asked to keep them (`keepAnswer`). */
  recorder: AnswerRecorder | null = null;
  /** The answer's id, finish reasons (and text, if asked) as the caller got them, when a plugin asked (`noteAnswer`); null otherwise. */
  answerNotes: AnswerNotes | null = null;
  /** The seal of the reasoning states the call hands out and reads back (src/neutral/reasoning-state.ts); the pipeline gives every call the gateway's one. */
  reasoningSeal: ReasoningSeal | null = null;
  /** What `adjust` does with an approximation: announce it (`lenient`) or refuse it (`strict`); set by the pipeline from the config. */
  parameterPolicy: ParameterPolicy = 'lenient';
  /** Parameters honoured only approximately, in the order met (see `adjust`); null while there are none. */
  adjustments: Adjustment[] | null = null;
  readonly timings: Timings;
  /** The caller's request headers as received (the proxy core replaces `req.headers` per attempt). */
  readonly callerHeaders: IncomingHttpHeaders;
  /**
   * Set while a stream is relayed: how its failure is written after the 200 (the format's sink
   * keeps state, such as Responses' sequence numbers). Null before, or for a whole reply.
   */
  streamFailure: ((error: GatewayError) => string) | null = null;
  private authenticatedKey: KeyRecord | null = null;
  private resolvedModel: ModelEntry | null = null;
  private parsedBody: JsonObject | undefined;
  private neutral: NeutralRequest | undefined;
  private outlined: CallOutline | undefined;
  /** While the body is read for a report (`requestForReport`): its adjustments are neither announced nor refused. */
  private reporting = false;
  /** Set once, when the caller goes away; `goneListeners` are told then (see `onCallerGone`). */
  private gone = false;
  private goneListeners: Set<() => void> | null = null;

  constructor(
    readonly endpoint: Endpoint,
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    /** Epoch ms of admission (the billing cycle is the admission's). */
    readonly admittedAt: number,
    /** The request bytes; the pipeline hands them over once read (after the header checks). */
    private rawBody?: Buffer,
  ) {
    this.callerHeaders = req.headers;
    (res as WithCall)[CALL] = this;
    this.timings = { received: performance.now(), upstreamStart: 0, upstreamHeaders: 0, upstreamEnd: 0, firstByte: 0, completed: 0 };
  }

  /** The key that authenticated the call; null until a plugin that provides `key` ran (src/chain/phases.ts). */
  get key(): KeyRecord | null {
    return this.authenticatedKey;
  }

  /** The canonical catalogue entry; null until a plugin that provides `model` ran (on a fallback, the sibling). */
  get model(): ModelEntry | null {
    return this.resolvedModel;
  }

  get family(): string | null {
    return this.resolvedModel?.family ?? null;
  }

  /** The `key` fact: the plugin that authenticates callers (`auth`) hands over the caller's key. */
  authenticate(key: KeyRecord): void {
    this.authenticatedKey = key;
  }

  /**
   * The `model` fact: the plugin that resolves model names (`model-normalise`) hands over the
   * canonical entry; the core hands over a sibling when it falls back to one (it then answers
   * and is billed).
   */
  resolveModel(model: ModelEntry): void {
    this.resolvedModel = model;
  }

  /**
   * The call's one abort: `listener` runs once when the caller's connection closes before the
   * reply is complete (at once if it already has). Returns how to stop listening. A plain set,
   * not an AbortController: an AbortSignal and its EventTarget cost ~15 µs of every call
   * (measured with --cpu-prof), and nothing the call waits on needs a DOM-style signal.
   */
  onCallerGone(listener: () => void): () => void {
    if (this.gone) {
      listener();
      return noop;
    }
    (this.goneListeners ??= new Set()).add(listener);
    return () => void this.goneListeners?.delete(listener);
  }

  /** Whether the caller went away before the reply was complete. */
  get callerGone(): boolean {
    return this.gone;
  }

  /** The caller's connection closed early: abort the upstream attempt, the backoff or the relay in progress. */
  callerLeft(): void {
    if (this.gone) return;
    this.gone = true;
    const listeners = this.goneListeners;
    this.goneListeners = null;
    if (listeners) for (const listener of listeners) listener();
  }

  /**
   * A parameter honoured only approximately (src/chain/adjustments.ts): recorded once and
   * announced in the answer's `x-gateway-adjusted` header — or, under `parameters: strict`,
   * refused with `refusal` as a 400 naming `param`. Translators may call it on every attempt.
   */
  adjust(param: string, action: string, refusal: string): void {
    if (this.reporting) return;
    if (this.parameterPolicy === 'strict') throw invalidRequest(refusal, param);
    this.announce(param, action);
  }

  /**
   * An adjustment the gateway's own routing made, not a parameter of the caller's honoured
   * approximately (reasoning state left out because the deployment that issued it cannot be
   * reached): announced like `adjust`'s, under `parameters: strict` too.
   */
  announce(param: string, action: string): void {
    if (this.reporting) return;
    const adjustments = (this.adjustments ??= []);
    if (adjustments.some((known) => known.param === param && known.action === action)) return;
    adjustments.push({ param, action });
    if (!this.res.headersSent) this.res.setHeader(ADJUSTED_HEADER, adjustedHeader(adjustments));
  }

  /**
   * Answers the call with an answer kept from an earlier one (src/chain/kept-answer.ts), in
   * `onRequest`: the request hooks after this one do not run, no upstream is called, and the call
   * costs nothing (its ledger row says `cached`).
   */
  answerWith(answer: KeptAnswer): void {
    this.givenAnswer = answer;
  }

  /** Asks, in `onRequest`, that the answer's pieces be kept as they are written, up to `maxBytes`; `keptAnswer` has them at completion. */
  keepAnswer(maxBytes: number): void {
    this.recorder = new AnswerRecorder(maxBytes);
  }

  /**
   * Asks, before the answer is written (`onHeaders`), that its id and finish reasons be noted in
   * `answerNotes` as the caller's format writes them; with `maxTextChars` > 0 its text too, up to
   * that many characters.
   */
  noteAnswer(maxTextChars = 0): void {
    this.answerNotes = new AnswerNotes(maxTextChars > 0, maxTextChars);
  }

  /** A successful answer whose every piece was kept (the last one too), or null: for the completion hooks. */
  get keptAnswer(): KeptAnswer | null {
    const recorder = this.recorder;
    if (!recorder || recorder.overflowed || this.outcome !== 'ok' || this.usage === null || recorder.pieces.length === 0) return null;
    return { stream: this.stream, pieces: recorder.pieces, usage: this.usage };
  }

  /** The request bytes as read by the pipeline. */
  receiveBody(raw: Buffer): void {
    this.rawBody = raw;
  }

  /**
   * Replaces the parsed body with `body` and the bytes with its JSON: for an adjustment that
   * changes a parameter's value (an output limit clamped), so that every reading and every
   * passthrough sends what was adjusted. The caller's own bytes are gone after it.
   */
  rewriteBody(body: JsonObject): void {
    this.parsedBody = body;
    this.rawBody = Buffer.from(JSON.stringify(body));
  }

  /** The raw request bytes, exactly as the caller sent them (unless an adjustment rewrote them: `rewriteBody`). */
  get rawJson(): Buffer | undefined {
    return this.rawBody;
  }

  /**
   * The request body as a JSON object, parsed on first use. Parsing lazily keeps the
   * contract's check order: auth (401) runs before a malformed body is noticed (400).
   */
  get body(): JsonObject {
    return (this.parsedBody ??= parseJsonBody(this.rawBody));
  }

  /** Parses a large body now, yielding to other calls' I/O between its steps (`parseJsonBodyInSteps`); `body` then reads it. */
  async parseBodyInSteps(): Promise<void> {
    if (this.parsedBody === undefined && this.rawBody !== undefined) this.parsedBody = await parseJsonBodyInSteps(this.rawBody);
  }

  /** The body read into the neutral request by the endpoint's format, once (translators' input). */
  get request(): NeutralRequest {
    return (this.neutral ??= this.endpoint.format.read(this));
  }

  /**
   * The neutral request for a report of the call once it is answered (telemetry's opted-in
   * content): the one a translator read, or, for a call passed through in its vendor's own wire
   * (which never reads it), the body read now without announcing or refusing what the read
   * would adjust (the passthrough honoured it) and without keeping it.
   */
  requestForReport(): NeutralRequest {
    if (this.neutral) return this.neutral;
    this.reporting = true;
    try {
      return this.endpoint.format.read(this);
    } finally {
      this.reporting = false;
    }
  }

  /** What the gatekeepers read from the body (stream, limits, capabilities asked for), once. */
  get outline(): CallOutline {
    return (this.outlined ??= this.endpoint.format.outline(this));
  }

  /**
   * Milliseconds the gateway itself spent on the call up to `now`: everything but the time
   * spent waiting on upstreams (each attempt until its headers or failure, then the answering
   * body or stream) and retry backoff. Per-event stream translation overlaps the upstream's
   * own pacing and so is not counted.
   */
  overheadMs(now: number): number {
    let outside = now - this.timings.received;
    for (const attempt of this.upstreamAttempts) outside -= attempt.endedAt - attempt.startedAt + attempt.waitMs;
    if (this.timings.upstreamEnd) outside -= this.timings.upstreamEnd - this.timings.upstreamHeaders;
    return Math.max(0, outside);
  }
}

import {
  defaultTextMapGetter,
  defaultTextMapSetter,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type HrTime,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { millisToHrTime, W3CTraceContextPropagator } from '@opentelemetry/core';
import { performance } from 'node:perf_hooks';
import type { Call, PluginContext, ResolvedCall, SettledCall } from '../../src/plugin-api.js';
import type { UpstreamRequest } from '../../src/toolkit/vendor.js';
import { answerAttributes, callErrorType, operationOf, usageAttributes } from './attributes.js';
import { contentAttributes, OUTPUT_TEXT_LIMIT_CHARS } from './content.js';

/**
 * A SERVER span per call and a CLIENT span per upstream attempt, its child. The server span
 * starts when the call's headers arrive (continuing the caller's `traceparent`), each client
 * span when its attempt's request is written (its id goes upstream in a `traceparent`); their
 * attributes are set once, when the call is settled, from what the call recorded — so that a
 * streamed call does no telemetry work per event.
 */

const TRACES = Symbol('telemetry.traces');

interface CallSpans {
  /**
   * Epoch ms of `performance.now()`'s zero for this call: every time of its spans is converted
   * with this one anchor (the SDK anchors each span on its own `Date.now()`, whose millisecond
   * steps would let a child start before its parent).
   */
  origin: number;
  server: Span;
  /** One per attempt, in order: the call's `upstreamAttempts` at the same index. */
  attempts: Span[];
}

type Traced = Call & { [TRACES]?: CallSpans };

/** A deployment's `server.address` and `server.port`, parsed once per base URL. */
interface Server {
  address: string;
  port: number;
}

export class CallTraces {
  private readonly propagator = new W3CTraceContextPropagator();
  private readonly servers = new Map<string, Server | null>();

  constructor(
    private readonly tracer: Tracer,
    private readonly upstreamBaseUrl: PluginContext['upstreamBaseUrl'],
    /** Whether the message content is exported (OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT): off unless opted in. */
    private readonly content: boolean,
  ) {}

  /** The call's SERVER span, from the moment it was received; the call's `traceId` is its trace's. */
  begin(call: Call): void {
    const parent = this.propagator.extract(ROOT_CONTEXT, call.callerHeaders, defaultTextMapGetter);
    const { endpoint } = call;
    const origin = Date.now() - performance.now();
    const startTime = at(origin, call.timings.received);
    const server = this.tracer.startSpan(`${endpoint.method} ${endpoint.path}`, { kind: SpanKind.SERVER, startTime }, parent);
    call.traceId = server.spanContext().traceId;
    // The answer's id and finish reasons (and, opted in, its text) as the caller's format writes them.
    call.noteAnswer(this.content ? OUTPUT_TEXT_LIMIT_CHARS : 0);
    (call as Traced)[TRACES] = { origin, server, attempts: [] };
  }

  /** An attempt's CLIENT span, and its context in the attempt's `traceparent` (and `tracestate`). */
  attempt(call: ResolvedCall, request: UpstreamRequest): void {
    const spans = (call as Traced)[TRACES];
    if (!spans) return;
    const parent = trace.setSpan(ROOT_CONTEXT, spans.server);
    const startTime = at(spans.origin, performance.now());
    const span = this.tracer.startSpan(`${operationOf(call)} ${call.model.id}`, { kind: SpanKind.CLIENT, startTime }, parent);
    spans.attempts.push(span);
    this.propagator.inject(trace.setSpan(ROOT_CONTEXT, span), request.headers, defaultTextMapSetter);
  }

  /** Every span of the call ended, with its attributes and the call's own times. */
  end(call: SettledCall): void {
    const spans = (call as Traced)[TRACES];
    if (!spans) return;
    const now = performance.now();
    const { origin } = spans;
    const records = call.upstreamAttempts;
    const operation = operationOf(call);
    spans.attempts.forEach((span, index) => {
      const record = records[index];
      if (!record) {
        span.end(at(origin, now));
        return;
      }
      // The last attempt answered whatever the call billed, a stream cut short included.
      const last = index === records.length - 1;
      const answering = last && call.usage !== null;
      const attributes: Attributes = {
        'gen_ai.operation.name': operation,
        'gen_ai.provider.name': record.family,
        'gen_ai.request.model': record.model,
        'gateway.deployment': record.deployment,
        'gateway.attempt': index + 1,
        ...this.server(record.family, record.deployment),
      };
      if (call.key) attributes['gateway.key_id'] = call.key.id;
      if (record.status) attributes['http.response.status_code'] = record.status;
      const maxTokens = call.outline.maxOutputTokens;
      if (maxTokens !== null) attributes['gen_ai.request.max_tokens'] = maxTokens;
      if (answering) {
        Object.assign(attributes, { 'gen_ai.response.model': record.model }, usageAttributes(call), answerAttributes(call));
        if (this.content) Object.assign(attributes, contentAttributes(call));
      }
      if (record.code !== null) {
        attributes['error.type'] = record.code;
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.setAttributes(attributes);
      // The answering attempt lasts until its body or stream ended; a failed one until it failed.
      span.end(at(origin, last && call.timings.upstreamEnd > record.startedAt ? call.timings.upstreamEnd : record.endedAt));
    });
    this.endServer(spans.server, call, at(origin, now));
  }

  private endServer(server: Span, call: SettledCall, end: HrTime): void {
    const attributes: Attributes = {
      'http.request.method': call.endpoint.method,
      'http.route': call.endpoint.path,
      'http.response.status_code': call.status,
    };
    if (call.key) attributes['gateway.key_id'] = call.key.id;
    if (call.usage !== null) Object.assign(attributes, answerAttributes(call));
    if (call.model) attributes['gen_ai.request.model'] = call.upstreamAttempts[0]?.model ?? call.model.id;
    if (call.status >= 500) {
      attributes['error.type'] = callErrorType(call) ?? String(call.status);
      server.setStatus({ code: SpanStatusCode.ERROR });
    }
    server.setAttributes(attributes);
    server.end(end);
  }

  /** `server.address` and `server.port` of a deployment's base URL (nothing else of it: it may carry a credential). */
  private server(family: string, deployment: string): Attributes {
    const base = this.upstreamBaseUrl(family, deployment);
    if (base === undefined) return {};
    let server = this.servers.get(base);
    if (server === undefined) {
      server = parsedServer(base);
      this.servers.set(base, server);
    }
    return server ? { 'server.address': server.address, 'server.port': server.port } : {};
  }
}

/** A `performance.now()` reading of the call as an epoch time. */
const at = (origin: number, monotonic: number): HrTime => millisToHrTime(origin + monotonic);

function parsedServer(base: string): Server | null {
  try {
    const url = new URL(base);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    return { address: url.hostname, port };
  } catch {
    return null;
  }
}
